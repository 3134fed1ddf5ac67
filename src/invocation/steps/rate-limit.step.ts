import { Injectable } from '@nestjs/common';
import { KeyRateLimiter } from '../../limits/key-rate-limiter';
import { quotaHeaders, QuotaService } from '../../limits/quota.service';
import { Invocation, InvocationStep, keyOf, PipelineStep, STEP_ORDER } from '../invocation';

/**
 * One call against the key's rate budget, shared by every route and transport: 429 past it.
 *
 * A tool call without an Idempotency-Key meets no other check between the rate limit and the
 * quota, so both are counted here in one step of the store (one round trip on Redis), in the
 * contract's order: over the rate limit nothing is counted, and a 402 keeps its rate count.
 * QuotaStep then has nothing left to do.
 */
@PipelineStep({ order: STEP_ORDER.rateLimit })
@Injectable()
export class RateLimitStep implements InvocationStep {
  constructor(
    private readonly limiter: KeyRateLimiter,
    private readonly quota: QuotaService,
  ) {}

  async run(invocation: Invocation): Promise<void> {
    if (invocation.rateCounted) return;
    const key = keyOf(invocation);
    const withQuota = invocation.tool !== undefined && invocation.idempotencyKey === undefined;
    const today = withQuota ? this.quota.today(key) : undefined;
    const counted = await this.limiter.consume(key, today);
    Object.assign(invocation.headers, counted.headers);
    if (!today || !counted.quota) return;
    invocation.quotaCounted = true;
    Object.assign(invocation.headers, quotaHeaders(this.quota.settle(today, counted.quota)));
  }
}
