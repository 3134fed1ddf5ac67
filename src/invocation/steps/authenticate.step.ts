import { Injectable } from '@nestjs/common';
import { bearerToken } from '../../auth/api-key';
import { ApiKeysService } from '../../auth/api-keys.service';
import { AuthFailureLimiter } from '../../auth/auth-failure.limiter';
import { notAuthenticated } from '../../auth/auth.errors';
import { ApiError } from '../../errors/api-error';
import { mayBeKept } from '../../store/keys/key.store';
import { Call, InvocationStep, PipelineStep, STEP_ORDER, StepDecision } from '../call';

/**
 * The bearer key must be active: 401 otherwise, and every failure counts against the client's
 * failed-authentication limit (429 past it). Two Authorization headers are refused, not guessed at.
 */
@PipelineStep({ order: STEP_ORDER.authenticate })
@Injectable()
export class AuthenticateStep implements InvocationStep {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly failures: AuthFailureLimiter,
  ) {}

  run(
    call: Call,
    _decided: unknown,
    attempt: { fresh: boolean },
  ): Promise<StepDecision> | StepDecision {
    // Authenticated by its transport for this very call: nothing to read again.
    if (call.caller) return { caller: call.caller };
    return this.authenticate(call, attempt.fresh);
  }

  private async authenticate(call: Call, retried: boolean): Promise<StepDecision> {
    if (call.authorization.length > 1) {
      // Node keeps the first of several; which one a proxy would pick is anyone's guess.
      await this.failures.recordFailure(call.client);
      throw new ApiError(400, 'Multiple Authorization headers');
    }
    const token = bearerToken(call.authorization[0]);
    // A kept copy of the key's record is checked by the count of the call's rate: a call whose rate
    // its transport paid meets no such count, and reads the record itself.
    const fresh = retried || call.ratePaid === true;
    const key = token === undefined ? undefined : await this.keys.authenticate(token, { fresh });
    if (key) return { caller: key, keptCaller: !fresh && mayBeKept(key) };
    await this.failures.recordFailure(call.client);
    throw notAuthenticated(
      token === undefined ? 'Not authenticated' : 'Invalid API key',
      call.bearerErrorCodes,
    );
  }
}
