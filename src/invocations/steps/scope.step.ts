import { Injectable } from '@nestjs/common';
import { AuthChallenges, hasAnyScope } from '../../auth';
import { Call, callerOf, Decisions, InvocationStep, PipelineStep, STEP_ORDER } from '../call';

/** The caller must hold one of the scopes the route or tool asks for: 403 otherwise. */
@PipelineStep({ order: STEP_ORDER.scope })
@Injectable()
export class ScopeStep implements InvocationStep {
  constructor(private readonly challenges: AuthChallenges) {}

  run(call: Call, decided: Readonly<Decisions>): void {
    const wanted = call.scopes;
    if (!wanted || hasAnyScope(callerOf(decided).scopes, wanted)) return;
    throw this.challenges.insufficientScope(call);
  }
}
