import type { ThrottlerStorage } from '@nestjs/throttler';

/** What a throttler storage answers per hit (not exported by @nestjs/throttler's index). */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** The answer to taking several hits at once: all of them or none. */
export interface TakeResult {
  taken: boolean;
  /** Hits counted in the window, these included when taken. */
  totalHits: number;
  /** Seconds until the window (or a block) ends: when to retry. */
  retryAfterSeconds: number;
}

/**
 * Rate windows: @nestjs/throttler's storage contract (one hit at a time), plus `take`, `n` hits
 * counted in one atomic step, all or nothing: an MCP POST of n messages either fits in what
 * remains of the key's budget or none of it runs. It reads and writes the same counters as
 * `increment`, so both draw on one budget. In memory (one process) or in Redis (every instance).
 */
export interface BudgetStorage extends ThrottlerStorage {
  take(
    key: string,
    ttl: number,
    limit: number,
    n: number,
    throttlerName: string,
  ): Promise<TakeResult>;
}

/**
 * The block a call over a key's budget sets, as the storages read it: until the window ends, and
 * no longer. The window is fixed: a call over the limit is refused until the window ends, and the
 * next window serves the whole limit again. The throttler's own block (as long as a window, from
 * the first call over) ran into the next window, where a client sending flat out had gone over
 * again before it ended, and was blocked anew: such a client got about 13 % of its limit.
 */
export const UNTIL_WINDOW_ENDS = 0;
