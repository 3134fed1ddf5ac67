import { Injectable } from '@nestjs/common';
import { LimitsService } from '../../limits';
import { ToolRegistry } from '../../tools/index';
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
 * it costs is LimitsService's to decide (with the quota, when nothing stands between them).
 */
@PipelineStep({ order: STEP_ORDER.rateLimit })
@Injectable()
export class RateLimitStep implements InvocationStep {
  constructor(
    private readonly accounting: LimitsService,
    private readonly registry: ToolRegistry,
  ) {}

  run(call: Call, decided: Readonly<Decisions>): Promise<StepDecision> {
    return this.accounting.chargeRate(callerOf(decided), {
      tool: call.tool,
      cost: call.tool === undefined ? undefined : this.registry.get(call.tool)?.runtime.cost,
      // The idempotency step stands between the rate and the quota: the quota waits for it.
      idempotent: call.idempotencyKey !== undefined,
      rateLimitCounted: call.rateLimitCounted === true,
      admitted: call.tool === undefined || decided.ticket !== undefined,
    });
  }
}
