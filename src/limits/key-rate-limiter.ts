import { Inject, Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { Settings, SETTINGS } from '../settings/settings';
import type { QuotaResult } from '../store/usage/usage.store';
import { CallCount, CallCounter } from '../store/accounting/call-counter';
import { keyRateBudget, LimitedKey } from './key-limits';
import type { BudgetStorage } from '../store/rate/rate.store';
import { rateLimitExceeded, rateLimitState } from './rate-limit.headers';

/**
 * The per-key rate limit of every keyed request, REST and MCP alike: one budget per key in the
 * throttler's storage (in memory, or Redis shared by every instance).
 */
@Injectable()
export class KeyRateLimiter {
  constructor(
    @Inject(ThrottlerStorage) private readonly storage: BudgetStorage,
    private readonly counter: CallCounter,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * Counts one call, or throws 429 when the key's budget for this window is spent (nothing more
   * is counted then). With `quota`, the call is then counted against that day's quota in the same
   * step, and its answer returned for QuotaService to settle. Returns the X-RateLimit-* headers of
   * the answer (as @nestjs/throttler's guard sets them).
   */
  async consume(
    key: LimitedKey,
    quota?: CallCount['quota'],
  ): Promise<{ headers: Record<string, number>; quota?: QuotaResult }> {
    const budget = keyRateBudget(key, this.settings);
    const counted = await this.counter.count({ key, budget, quota });
    const hit = counted.rate;
    // Refused until the window ends, no longer (UNTIL_WINDOW_ENDS).
    if (hit.isBlocked) throw rateLimitExceeded(budget.limit, budget.ttlMs, hit.timeToBlockExpire);
    return {
      headers: rateLimitState(budget.limit, budget.limit - hit.totalHits, hit.timeToExpire),
      quota: counted.quota,
    };
  }

  /**
   * Counts `n` calls at once, all or none: throws 429 when they do not all fit in what remains of
   * the key's budget for this window (nothing is counted then). Returns the X-RateLimit-* headers.
   */
  async consumeMany(key: LimitedKey, n: number): Promise<Record<string, number>> {
    const budget = keyRateBudget(key, this.settings);
    const result = await this.storage.take(
      budget.storageKey,
      budget.ttlMs,
      budget.limit,
      n,
      budget.throttler,
    );
    if (!result.taken)
      throw rateLimitExceeded(budget.limit, budget.ttlMs, result.retryAfterSeconds);
    return rateLimitState(budget.limit, budget.limit - result.totalHits, result.retryAfterSeconds);
  }
}
