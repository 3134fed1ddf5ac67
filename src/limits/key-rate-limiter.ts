import { Inject, Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { Settings, SETTINGS } from '../kernel/settings/settings';
import type { QuotaResult } from './usage.store';
import { CallCount, CallCounter } from './call-counter';
import { Clock } from '../kernel/common/clock';
import { rateBudgetOf, Payer } from './key-limits';
import type { BucketDraw, BudgetStorage, RateBudget } from './rate.store';
import { rateLimitExceeded, rateLimitState } from './rate-limit.headers';

/**
 * The per-key rate limit of every keyed request, REST and MCP alike: one token bucket per key in
 * the rate storage (in memory, or Redis shared by every instance), refilled by the service's clock.
 */
@Injectable()
export class KeyRateLimiter {
  constructor(
    @Inject(ThrottlerStorage) private readonly storage: BudgetStorage,
    private readonly counter: CallCounter,
    private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * Counts one call, or throws 429 when the key's bucket is empty (nothing more is counted then).
   * With `quota`, the call is then counted against that day's quota in the same step, and its
   * answer returned for QuotaService to settle. Returns the X-RateLimit-* headers of the answer.
   */
  async consume(
    key: Payer,
    quota?: CallCount['quota'],
  ): Promise<{ headers: Record<string, string | number>; quota?: QuotaResult }> {
    const budget = rateBudgetOf(key, this.settings);
    const counted = await this.counter.count({ key, budget, nowMs: this.clock.nowMs(), quota });
    return { headers: rateHeaders(budget, counted.rate), quota: counted.quota };
  }

  /**
   * Counts `n` calls at once, all or none: throws 429 when the key's bucket does not hold them all
   * (nothing is counted then). Returns the X-RateLimit-* headers.
   */
  async consumeMany(key: Payer, n: number): Promise<Record<string, string | number>> {
    const budget = rateBudgetOf(key, this.settings);
    return rateHeaders(budget, await this.storage.draw(budget, n, this.clock.nowMs()));
  }
}

/**
 * The headers of a counted answer: the bucket's size, the whole calls left, the seconds until the
 * bucket is full again and its policy; or the 429, which says when one call will fit.
 */
function rateHeaders(budget: RateBudget, draw: BucketDraw): Record<string, string | number> {
  if (!draw.taken) {
    throw rateLimitExceeded(budget, Math.ceil(draw.untilOneMs / 1000), draw.remaining);
  }
  return rateLimitState(budget, draw.remaining, Math.ceil(draw.untilFullMs / 1000));
}
