import { Inject, Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import { Settings, SETTINGS } from '../settings/settings';
import { keyRateBudget } from './key-limits';
import type { BudgetStorage } from './memory-throttler.storage';
import { rateLimitExceeded, rateLimitHeaders } from './rate-limit.headers';

/**
 * The per-key rate limit for calls that do not go through KeyRateLimitGuard (MCP's tools/call):
 * the same storage, storage key and limit, so REST and MCP draw on one budget.
 */
@Injectable()
export class KeyRateLimiter {
  constructor(
    @Inject(ThrottlerStorage) private readonly storage: BudgetStorage,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /** Counts one call, or throws 429 when the key's budget for this window is spent. */
  async consume(key: AuthenticatedKey): Promise<void> {
    const budget = keyRateBudget(key, this.settings);
    const hit = await this.storage.increment(
      budget.storageKey,
      budget.ttlMs,
      budget.limit,
      budget.ttlMs,
      budget.throttler,
    );
    if (hit.isBlocked) throw rateLimitExceeded(budget.limit, budget.ttlMs, hit.timeToBlockExpire);
  }

  /**
   * Counts `n` calls at once, all or none: throws 429 when they do not all fit in what remains of
   * the key's budget for this window (nothing is counted then). Returns the X-RateLimit-* headers.
   */
  async consumeMany(key: AuthenticatedKey, n: number): Promise<Record<string, number>> {
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
    const { 'Retry-After': _wait, ...headers } = rateLimitHeaders(
      budget.limit,
      budget.limit - result.totalHits,
      result.retryAfterSeconds,
    );
    return headers;
  }
}
