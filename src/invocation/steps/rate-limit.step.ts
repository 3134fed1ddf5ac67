import { Injectable } from '@nestjs/common';
import { Accounting } from '../../limits/accounting';
import {
  Call,
  callerOf,
  Decisions,
  InvocationStep,
  PipelineStep,
  STEP_ORDER,
  StepDecision,
} from '../call';

/**
 * One call against the key's rate budget, shared by every route and transport: 429 past it. What
 * it costs is Accounting's to decide (with the quota, when nothing stands between them).
 */
@PipelineStep({ order: STEP_ORDER.rateLimit })
@Injectable()
export class RateLimitStep implements InvocationStep {
  constructor(private readonly accounting: Accounting) {}

  run(call: Call, decided: Readonly<Decisions>): Promise<StepDecision> {
    return this.accounting.open(callerOf(decided), {
      tool: call.tool,
      idempotent: call.idempotencyKey !== undefined,
      ratePaid: call.ratePaid === true,
    });
  }
}
