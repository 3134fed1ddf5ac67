import { Inject, Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import { Settings, SETTINGS } from '../settings/settings';
import { keyRateBudget } from './key-limits';
import { rateLimitExceeded } from './rate-limit.headers';

/**
 * The per-key rate limit for calls that do not go through KeyRateLimitGuard (MCP's tools/call):
 * the same storage, storage key and limit, so REST and MCP draw on one budget.
 */
@Injectable()
export class KeyRateLimiter {
  constructor(
    @Inject(ThrottlerStorage) private readonly storage: ThrottlerStorage,
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
}
