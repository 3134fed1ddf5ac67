import type { RateBudget } from './rate.store';
import { BucketLevel, drawFromBucket } from './token-bucket';

const budget = (rate: number, burst: number, windowMs = 1000): RateBudget => ({
  throttler: 'default',
  storageKey: 'k',
  windowMs,
  rate,
  burst,
});

/** A bucket drawn from call after call, keeping what each draw leaves, as the stores do. */
function bucket(limits: RateBudget) {
  let level: BucketLevel | undefined;
  return (now: number, calls = 1) => {
    const result = drawFromBucket(level, limits, calls, now);
    level = result.level ?? level;
    return result.draw;
  };
}

describe('drawFromBucket', () => {
  it('gives a full bucket at once, then one call per 1/rate of the window', () => {
    const draw = bucket(budget(5, 15));
    for (let i = 14; i >= 0; i--) expect(draw(0)).toMatchObject({ taken: true, remaining: i });
    expect(draw(0)).toEqual({ taken: false, remaining: 0, untilOneMs: 200, untilFullMs: 3000 });
    expect(draw(199).taken).toBe(false);
    expect(draw(200)).toEqual({ taken: true, remaining: 0, untilOneMs: 200, untilFullMs: 3000 });
    expect(draw(10_000)).toEqual({ taken: true, remaining: 14, untilOneMs: 0, untilFullMs: 200 });
  });

  it('stays exact when the rate does not divide the window: 3 a second is one each 333⅓ ms', () => {
    const draw = bucket(budget(3, 3));
    expect(draw(0, 3).taken).toBe(true);
    expect(draw(333)).toMatchObject({ taken: false, untilOneMs: 1 });
    expect(draw(334).taken).toBe(true);
    // The second call came ⅔ ms late, and that credit stays: the third fits at 666⅔, so at 667.
    expect(draw(666).taken).toBe(false);
    expect(draw(667).taken).toBe(true);
    expect(draw(1000).taken).toBe(true);
    expect(draw(1000).taken).toBe(false);
  });

  it('takes several calls all or none, and a refusal takes nothing', () => {
    const draw = bucket(budget(5, 15));
    expect(draw(0, 16)).toEqual({ taken: false, remaining: 15, untilOneMs: 0, untilFullMs: 0 });
    expect(draw(0, 10)).toMatchObject({ taken: true, remaining: 5 });
    expect(draw(0, 6)).toMatchObject({ taken: false, remaining: 5 });
    expect(draw(0, 5)).toMatchObject({ taken: true, remaining: 0 });
  });

  it('counts from a clock that stepped back more than a window, and waits for one a little behind', () => {
    const draw = bucket(budget(5, 5));
    expect(draw(10_000, 5).taken).toBe(true);
    // Another instance's clock 500 ms behind: no refill until it passes the last draw's time.
    expect(draw(9_500).taken).toBe(false);
    expect(draw(10_200).taken).toBe(true);
    // An hour back: the bucket counts from there on, rather than wait an hour.
    expect(draw(10_200 - 3_600_000).taken).toBe(false);
    expect(draw(10_400 - 3_600_000).taken).toBe(true);
  });

  it('never refills a bucket with a rate of 0, and says to retry after a window', () => {
    const draw = bucket(budget(0, 2));
    expect(draw(0, 2).taken).toBe(true);
    expect(draw(60_000)).toEqual({
      taken: false,
      remaining: 0,
      untilOneMs: 1000,
      untilFullMs: 1000,
    });
  });
});
