import { Injectable } from '@nestjs/common';
import { bearerToken, KeysService, AuthFailureLimiter, mayBeCached } from '../../subjects';
import type { NotAuthenticatedDetail } from '../../auth';
import type { Caller } from '../../subjects';
import { AuthChallenges } from '../../auth';
import { ApiError } from '../../kernel/errors/api-error';
import { InvalidAccessToken, PrincipalsService } from '../../oauth';
import { Call, InvocationStep, PipelineStep, STEP_ORDER, StepDecision } from '../call';

/**
 * Who calls: an active key (a bearer token starting `sk_`), or, with OAuth configured, the
 * principal of a valid access token (any other bearer token, docs/oauth.md). 401 otherwise, and
 * every failure counts against the client's failed-authentication limit (429 past it); an issuer
 * that cannot be asked is 503, never a guess. Two Authorization headers are refused, not guessed at.
 */
@PipelineStep({ order: STEP_ORDER.authenticate })
@Injectable()
export class AuthenticateStep implements InvocationStep {
  constructor(
    private readonly keys: KeysService,
    private readonly principals: PrincipalsService,
    private readonly failures: AuthFailureLimiter,
    private readonly challenges: AuthChallenges,
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
    // A cached copy of the caller's record is checked by the count of the call's rate: a call whose
    // rate its transport paid meets no such count, and reads the record itself.
    const fresh = retried || call.rateLimitCounted === true;
    let detail: NotAuthenticatedDetail = 'Invalid API key';
    let caller: Caller | undefined;
    if (token === undefined) {
      detail = 'Not authenticated';
    } else if (this.principals.enabled && !token.startsWith('sk_')) {
      detail = 'Invalid access token';
      caller = await this.principals
        .authenticate(token, call.resource ?? 'api', { fresh })
        .catch(refusedToken);
    } else {
      caller = await this.keys.authenticate(token, { fresh });
    }
    if (caller) return { caller, callerFromCache: !fresh && mayBeCached(caller) };
    await this.failures.recordFailure(call.client);
    throw this.challenges.unauthenticated(detail, call);
  }
}

/** A token refused is no caller (401); anything else (a 503, a store failure) stands. */
function refusedToken(error: unknown): undefined {
  if (error instanceof InvalidAccessToken) return undefined;
  throw error;
}
