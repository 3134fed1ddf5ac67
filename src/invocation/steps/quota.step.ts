import { Injectable } from '@nestjs/common';
import { quotaHeaders, QuotaService } from '../../limits/quota.service';
import { Invocation, InvocationStep, keyOf, PipelineStep, STEP_ORDER } from '../invocation';

/**
 * A tool call counts once against the key's daily quota, whatever follows (even a 400): 402 when
 * the day's limit is used up, and a 402 is not counted. Other routes are not metered.
 */
@PipelineStep({ order: STEP_ORDER.quota })
@Injectable()
export class QuotaStep implements InvocationStep {
  constructor(private readonly quota: QuotaService) {}

  async run(invocation: Invocation): Promise<void> {
    if (invocation.tool === undefined || invocation.quotaCounted) return;
    Object.assign(invocation.headers, quotaHeaders(await this.quota.consume(keyOf(invocation))));
  }
}
