import { Admission, ToolCapacity, ToolSlots } from './tool-slots';

/** Four slots, eight places in the queue; a share of a quarter: one slot and two places a caller. */
const TOOL: ToolCapacity = { concurrency: 4, queue: 8, perCallerShare: 0.25 };

/** Reserves `n` places for `caller`, expecting each to be a ticket. */
function take(slots: ToolSlots, caller: string, n: number, tool = TOOL): Admission[] {
  return Array.from({ length: n }, () => {
    const place = slots.reserve('t', tool, caller);
    if (!(place instanceof Admission)) throw new Error(`${caller} was refused: ${place}`);
    return place;
  });
}

const usage = (slots: ToolSlots) => slots.usage().find((lane) => lane.tool === 't');

describe('ToolSlots: capacity and the fair share of a tool', () => {
  it('lets a caller alone use every slot and every place, then refuses it at capacity', () => {
    const slots = new ToolSlots();
    const tickets = take(slots, 'a', 12);
    expect(tickets.filter((ticket) => !ticket.queued)).toHaveLength(4);
    expect(slots.reserve('t', TOOL, 'a')).toBe('capacity');
    expect(usage(slots)).toEqual({ tool: 't', inFlight: 4, queued: 8 });
  });

  it('admits another caller to a full queue by its share, then refuses it past its share', () => {
    const slots = new ToolSlots();
    take(slots, 'a', 12);
    const [first, second] = take(slots, 'b', 2);
    expect([first.queued, second.queued]).toEqual([true, true]);
    expect(usage(slots)?.queued).toBe(10);
    expect(slots.reserve('t', TOOL, 'b')).toBe('fair_share');
    // While b waits, a is past its share of the queue: refused for it, not for capacity.
    expect(slots.reserve('t', TOOL, 'a')).toBe('fair_share');
  });

  it('refuses a caller past its share of the queue while another waits, though the queue has room', () => {
    const slots = new ToolSlots();
    take(slots, 'a', 4 + 3);
    take(slots, 'b', 1);
    expect(usage(slots)).toEqual({ tool: 't', inFlight: 4, queued: 4 });
    expect(slots.reserve('t', TOOL, 'a')).toBe('fair_share');
    expect(slots.reserve('t', TOOL, 'b')).toBeInstanceOf(Admission);
    expect(slots.reserve('t', TOOL, 'b')).toBe('fair_share');
  });

  it('gives a freed slot to the first waiting call of a caller under its share of the slots', async () => {
    const slots = new ToolSlots();
    const running = take(slots, 'a', 4);
    const aWaiting = take(slots, 'a', 2);
    const [bWaiting] = take(slots, 'b', 1);
    const order: string[] = [];
    void aWaiting[0].started().then(() => order.push('a'));
    void bWaiting.started().then(() => order.push('b'));
    running[0].release();
    await Promise.resolve();
    expect(order).toEqual(['b']);
    expect([bWaiting.queued, aWaiting[0].queued, aWaiting[1].queued]).toEqual([false, true, true]);
    // b holds its share now: the next slot goes to the queue's first, a's.
    running[1].release();
    await Promise.resolve();
    expect(order).toEqual(['b', 'a']);
  });

  it('gives a freed slot past every share to the caller holding the fewest', () => {
    const slots = new ToolSlots();
    const running = take(slots, 'a', 4);
    const [a0, a1] = take(slots, 'a', 2);
    const [b0, b1] = take(slots, 'b', 2);
    running[0].release();
    expect([b0.queued, b1.queued]).toEqual([false, true]);
    // a holds two, b one (its share): b's next call starts, not a's first.
    running[1].release();
    expect([a0.queued, b1.queued]).toEqual([true, false]);
    // b holds two, a one: a's first.
    running[2].release();
    expect([a0.queued, a1.queued]).toEqual([false, true]);
  });

  it("never evicts an accepted call: every call taken runs, the newcomer's before the queue", async () => {
    const slots = new ToolSlots();
    const a = take(slots, 'a', 12).map((ticket, i) => ['a' + i, ticket] as const);
    const b = take(slots, 'b', 2).map((ticket, i) => ['b' + i, ticket] as const);
    const started: string[] = [];
    const failed: string[] = [];
    // Each call ends as soon as it holds a slot: its release starts the next.
    for (const [name, ticket] of [...a, ...b]) {
      ticket.started().then(
        () => {
          started.push(name);
          ticket.release();
        },
        () => failed.push(name),
      );
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(failed).toEqual([]);
    expect([...started].sort()).toEqual([...a, ...b].map(([name]) => name).sort());
    expect(started.indexOf('b0')).toBeLessThan(started.indexOf('a4'));
    expect(usage(slots)).toEqual({ tool: 't', inFlight: 0, queued: 0 });
  });

  it('counts a refused reservation nowhere, and forgets a caller with its last call', () => {
    const slots = new ToolSlots();
    const tickets = take(slots, 'a', 12);
    expect(slots.reserve('t', TOOL, 'a')).toBe('capacity');
    for (const ticket of tickets.reverse()) ticket.release();
    expect(usage(slots)).toEqual({ tool: 't', inFlight: 0, queued: 0 });
    // A fresh start: b alone may use the whole tool again.
    expect(take(slots, 'b', 12)).toHaveLength(12);
    expect(slots.reserve('t', TOOL, 'b')).toBe('capacity');
  });

  it('keeps counting a caller that holds calls while many others come and go', () => {
    const slots = new ToolSlots();
    const [a1] = take(slots, 'a', 2);
    // More callers than a tool remembers idle: those holding nothing are forgotten, a is not.
    for (let i = 0; i < 1_200; i++) take(slots, `passer-${i}`, 1)[0].release();
    take(slots, 'b', 1);
    take(slots, 'a', 1);
    const [aWaiting] = take(slots, 'a', 1);
    const [bWaiting] = take(slots, 'b', 1);
    // a holds two slots once a1 ends, b one: the slot goes to b, the caller holding fewer.
    a1.release();
    expect([bWaiting.queued, aWaiting.queued]).toEqual([false, true]);
  });

  it('gives a place in the queue back when its call gives up waiting', async () => {
    const slots = new ToolSlots();
    take(slots, 'a', 12);
    const [b] = take(slots, 'b', 1);
    const giveUp = new AbortController();
    const waiting = b.started(giveUp.signal);
    giveUp.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(usage(slots)?.queued).toBe(8);
    // a waits alone again: past its share, but only the tool's capacity refuses it.
    expect(slots.reserve('t', TOOL, 'a')).toBe('capacity');
  });

  it('grows the queue only by the shares of callers within them, at most to twice its size', () => {
    const slots = new ToolSlots();
    take(slots, 'a', 12);
    for (const caller of ['b', 'c', 'd']) take(slots, caller, 2);
    // a's two places within its share and b's, c's and d's fill the queue's eight.
    expect(usage(slots)?.queued).toBe(14);
    expect(slots.reserve('t', TOOL, 'e')).toBe('capacity');
  });

  it('takes a share of at least one of each, computed without floating-point error', () => {
    const tenths = new ToolSlots();
    const three = { concurrency: 1, queue: 10, perCallerShare: 0.3 };
    take(tenths, 'a', 11, three);
    // ceil(10 × 0.3) is 3 places, not 4.
    expect(take(tenths, 'b', 3, three)).toHaveLength(3);
    expect(tenths.reserve('t', three, 'b')).toBe('fair_share');
    const hundredths = new ToolSlots();
    const tiny = { concurrency: 1, queue: 2, perCallerShare: 0.01 };
    take(hundredths, 'a', 3, tiny);
    expect(take(hundredths, 'b', 1, tiny)).toHaveLength(1);
    expect(hundredths.reserve('t', tiny, 'b')).toBe('fair_share');
  });

  it('shares nothing of a tool with no queue: a call finding every slot taken is refused', () => {
    const slots = new ToolSlots();
    const none = { concurrency: 2, queue: 0, perCallerShare: 0.25 };
    take(slots, 'a', 2, none);
    expect(slots.reserve('t', none, 'b')).toBe('capacity');
  });

  it('with a share of 1, applies capacity alone', () => {
    const slots = new ToolSlots();
    const whole = { ...TOOL, perCallerShare: 1 };
    take(slots, 'a', 12, whole);
    expect(slots.reserve('t', whole, 'b')).toBe('capacity');
  });
});
