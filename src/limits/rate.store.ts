import type { ThrottlerStorage } from '@nestjs/throttler';

/** What a throttler storage answers per hit (not exported by @nestjs/throttler's index). */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * A key's rate budget, a token bucket: it holds `burst` calls when full and gains `rate` calls per
 * window, continuously. A caller quiet for a while may make `burst` calls at once; one that keeps
 * sending gets `rate` a window, and a refusal takes nothing from it (no penalty block).
 */
export interface RateBudget {
  throttler: string;
  /** Where the bucket is kept: with `throttler`, its key in the rate storage. */
  storageKey: string;
  /** The window the rate counts in (RATE_LIMIT_WINDOW_MS). */
  windowMs: number;
  /** Calls the bucket gains per window. */
  rate: number;
  /** Calls the bucket holds when full. */
  burst: number;
}

/** What drawing calls from a bucket did, and where it stands after. */
export interface BucketDraw {
  /** All the calls were taken; false: none was. */
  taken: boolean;
  /** Whole calls left in the bucket now. */
  remaining: number;
  /** Milliseconds until the bucket holds one call again (0 when it holds one). */
  untilOneMs: number;
  /** Milliseconds until the bucket is full again (0 when it is). */
  untilFullMs: number;
}

/**
 * Rate limits in one storage, in memory (one process) or in Redis (every instance):
 * @nestjs/throttler's storage contract (a fixed window, one hit at a time: failed authentications
 * per address), and the keys' token buckets, `draw` taking `calls` at once, all or none, so that
 * an MCP POST of n messages either fits in what the key's bucket holds or none of it runs.
 */
export interface BudgetStorage extends ThrottlerStorage {
  draw(budget: RateBudget, calls: number, nowMs: number): Promise<BucketDraw>;
}
