import { Periodic } from './periodic';

describe('Periodic', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** A pass that ends when the test says so. */
  function gatedWork() {
    const passes: (() => void)[] = [];
    const work = jest.fn(() => new Promise<void>((resolve) => passes.push(resolve)));
    return { work, finish: () => passes.shift()?.() };
  }

  it('runs a pass at start, then every interval', async () => {
    const work = jest.fn(() => Promise.resolve());
    const task = new Periodic({ everyMs: 1000, work, onError: jest.fn() });
    task.start();
    expect(work).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(3000);
    expect(work).toHaveBeenCalledTimes(4);
    await task.stop();
  });

  it('waits an interval for its first pass when told to', async () => {
    const work = jest.fn(() => Promise.resolve());
    const task = new Periodic({ everyMs: 1000, work, onError: jest.fn(), atStart: false });
    task.start();
    expect(work).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1000);
    expect(work).toHaveBeenCalledTimes(1);
    await task.stop();
  });

  it('never starts a pass while one is under way', async () => {
    const { work, finish } = gatedWork();
    const task = new Periodic({ everyMs: 1000, work, onError: jest.fn() });
    task.start();
    await jest.advanceTimersByTimeAsync(5000);
    expect(work).toHaveBeenCalledTimes(1);
    expect(task.runNow()).toBe(task.runNow());
    finish();
    await jest.advanceTimersByTimeAsync(1000);
    expect(work).toHaveBeenCalledTimes(2);
    finish();
    await task.stop();
  });

  it('hands a failed pass to its owner and goes on', async () => {
    const failure = new Error('store down');
    const work = jest.fn().mockRejectedValueOnce(failure).mockResolvedValue(undefined);
    const onError = jest.fn();
    const task = new Periodic({ everyMs: 1000, work, onError });
    task.start();
    await jest.advanceTimersByTimeAsync(1000);
    expect(onError).toHaveBeenCalledWith(failure);
    expect(work).toHaveBeenCalledTimes(2);
    await task.stop();
  });

  it('stops: waits for the pass under way, starts none after', async () => {
    const { work, finish } = gatedWork();
    const task = new Periodic({ everyMs: 1000, work, onError: jest.fn() });
    task.start();
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    expect(task.stopping).toBe(true);
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    await jest.advanceTimersByTimeAsync(5000);
    await task.runNow();
    expect(work).toHaveBeenCalledTimes(1);
  });
});
