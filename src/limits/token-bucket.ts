import type { BucketDraw, RateBudget } from './rate.store';

/**
 * A bucket's level in whole numbers, so that a count is exact for any rate and window: a call is
 * `windowMs` parts, the bucket gains `rate` parts a millisecond and holds `burst * windowMs` parts.
 * (With the default one-second window, a part is a thousandth of a call.)
 */
export interface BucketLevel {
  parts: number;
  /** When `parts` was last brought up to date (ms since the epoch). */
  at: number;
}

/**
 * Draws `calls` from a bucket at `now`: the arithmetic of the Redis script (BUCKET_LUA), step for
 * step, for the store of one process. A missing level is a full bucket. Returns the level to keep
 * (undefined when a refused draw changed nothing: the refill is the same computed later) and what
 * the draw did.
 */
export function drawFromBucket(
  level: BucketLevel | undefined,
  { windowMs, rate, burst }: RateBudget,
  calls: number,
  now: number,
): { level?: BucketLevel; draw: BucketDraw } {
  const full = burst * windowMs;
  let parts = level?.parts ?? full;
  let at = level?.at ?? now;
  // This clock stepped back (or lags another instance's) by more than a window: count from it.
  const restart = at - now > windowMs;
  if (now > at || restart) {
    parts = Math.min(full, parts + Math.max(0, now - at) * rate);
    at = now;
  }
  const taken = parts >= calls * windowMs;
  if (taken) parts -= calls * windowMs;
  return {
    level: taken || restart ? { parts, at } : undefined,
    draw: {
      taken,
      remaining: Math.floor(parts / windowMs),
      untilOneMs: msUntil(parts, windowMs, rate, windowMs),
      untilFullMs: msUntil(parts, full, rate, windowMs),
    },
  };
}

/** Milliseconds until a bucket at `parts` holds `target` parts (a window when it never refills). */
function msUntil(parts: number, target: number, rate: number, windowMs: number): number {
  if (parts >= target) return 0;
  return rate > 0 ? Math.ceil((target - parts) / rate) : windowMs;
}
