import { Injectable } from '@nestjs/common';
import { insufficientPermissions } from '../../auth/auth.errors';
import { hasAnyScope } from '../../auth/scopes';
import { Invocation, InvocationStep, keyOf, PipelineStep, STEP_ORDER } from '../invocation';

/** The key must hold one of the scopes the route or tool asks for: 403 otherwise. */
@PipelineStep({ order: STEP_ORDER.scope })
@Injectable()
export class ScopeStep implements InvocationStep {
  run(invocation: Invocation): void {
    const wanted = invocation.scopes;
    if (!wanted || hasAnyScope(keyOf(invocation).scopes, wanted)) return;
    throw insufficientPermissions(invocation.bearerErrorCodes ? wanted : undefined);
  }
}
