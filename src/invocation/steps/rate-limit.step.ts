import { Injectable } from '@nestjs/common';
import { KeyRateLimiter } from '../../limits/key-rate-limiter';
import { Invocation, InvocationStep, keyOf, PipelineStep, STEP_ORDER } from '../invocation';

/** One call against the key's rate budget, shared by every route and transport: 429 past it. */
@PipelineStep({ order: STEP_ORDER.rateLimit })
@Injectable()
export class RateLimitStep implements InvocationStep {
  constructor(private readonly limiter: KeyRateLimiter) {}

  async run(invocation: Invocation): Promise<void> {
    if (invocation.rateCounted) return;
    Object.assign(invocation.headers, await this.limiter.consume(keyOf(invocation)));
  }
}
