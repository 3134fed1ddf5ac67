import { Injectable } from '@nestjs/common';
import { bearerToken } from '../../auth/api-key';
import { ApiKeysService } from '../../auth/api-keys.service';
import { AuthFailureLimiter } from '../../auth/auth-failure.limiter';
import { notAuthenticated } from '../../auth/auth.errors';
import { ApiError } from '../../errors/api-error';
import { mayBeKept } from '../../store/keys/key.store';
import { Invocation, InvocationStep, PipelineStep, STEP_ORDER } from '../invocation';

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

  async run(invocation: Invocation): Promise<void> {
    if (invocation.key) return;
    if (invocation.authorization.length > 1) {
      // Node keeps the first of several; which one a proxy would pick is anyone's guess.
      await this.failures.recordFailure(invocation.client);
      throw new ApiError(400, 'Multiple Authorization headers');
    }
    const token = bearerToken(invocation.authorization[0]);
    // A kept copy of the key's record is checked by the rate step's count: a call whose rate its
    // transport counted meets no such count, and reads the record itself.
    const fresh = invocation.freshKey === true || invocation.rateCounted;
    const key = token === undefined ? undefined : await this.keys.authenticate(token, { fresh });
    if (key) {
      invocation.key = key;
      invocation.keyKept = !fresh && mayBeKept(key);
      return;
    }
    await this.failures.recordFailure(invocation.client);
    throw notAuthenticated(
      token === undefined ? 'Not authenticated' : 'Invalid API key',
      invocation.bearerErrorCodes,
    );
  }
}
