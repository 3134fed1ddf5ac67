import { Injectable } from '@nestjs/common';
import { LimitsService } from '../../limits';
import { Decisions, InvocationStep, PipelineStep, STEP_ORDER, StepDecision } from '../call';

/**
 * A tool call counts once against the key's daily quota, whatever follows (even a 400): 402 when
 * the day's limit is used up, and a 402 is not counted. LimitsService knows whether the rate step
 * already counted it (no Idempotency-Key: one step of the store for both); other routes are not
 * metered.
 */
@PipelineStep({ order: STEP_ORDER.quota })
@Injectable()
export class QuotaStep implements InvocationStep {
  constructor(private readonly accounting: LimitsService) {}

  run(_call: unknown, decided: Readonly<Decisions>): Promise<StepDecision> | void {
    const charge = decided.charge;
    if (!charge || charge.quota !== 'due') return;
    return this.accounting.chargeCredits(charge);
  }
}
