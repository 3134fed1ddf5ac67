import { MemoryRateStore } from './memory-rate.store';

describe('MemoryRateStore', () => {
  let now = 1_000_000;
  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('counts within a window, blocks past the limit, and serves again in the next window', async () => {
    const storage = new MemoryRateStore();
    const hit = () => storage.increment('k', 1000, 2, 1000, 'default');
    expect(await hit()).toEqual({
      totalHits: 1,
      timeToExpire: 1,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    expect((await hit()).isBlocked).toBe(false);
    expect(await hit()).toEqual({
      totalHits: 3,
      timeToExpire: 1,
      isBlocked: true,
      timeToBlockExpire: 1,
    });
    now += 400;
    expect((await hit()).isBlocked).toBe(true);
    now += 600;
    expect(await hit()).toEqual({
      totalHits: 1,
      timeToExpire: 1,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
  });

  it('keeps a block for its whole duration even when the window ends first', async () => {
    const storage = new MemoryRateStore();
    const hit = () => storage.increment('k', 1000, 1, 60_000, 'auth');
    await hit();
    expect((await hit()).isBlocked).toBe(true);
    now += 30_000;
    expect(await hit()).toEqual({
      totalHits: 1,
      timeToExpire: 1,
      isBlocked: true,
      timeToBlockExpire: 30,
    });
    now += 30_000;
    expect((await hit()).isBlocked).toBe(false);
  });

  it('keeps keys and throttlers apart', async () => {
    const storage = new MemoryRateStore();
    await storage.increment('a', 1000, 1, 1000, 'default');
    expect((await storage.increment('b', 1000, 1, 1000, 'default')).totalHits).toBe(1);
    expect((await storage.increment('a', 1000, 1, 1000, 'other')).totalHits).toBe(1);
  });
});
