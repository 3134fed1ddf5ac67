import { Traced } from '../tracing';
import { Injectable } from '@nestjs/common';
import { bearerToken, KeysService, AuthFailureLimiter, mayBeCached } from '../subjects';
import type { Caller } from '../subjects';
import type { NotAuthenticatedDetail } from '../kernel/auth/auth.errors';
import { AuthChallenges } from '../kernel/auth/challenges';
import type { ResourceName } from '../kernel/auth/protected-resource';
import { ApiError } from '../kernel/errors/api-error';
import { InvalidAccessToken, PrincipalsService } from '../oauth';
import { RUN_ENDED, RunsService } from '../runs';

/** What authentication reads of a call (the invocations feature's `Call` carries it). */
export interface Credentials {
  /** Every `Authorization` value as received (stdio: its key as a bearer value). */
  authorization: readonly string[];
  /** Whose failed authentications count together: the client's address. */
  client: string;
  /** The protected resource the call is made on: an access token must be meant for it. */
  resource?: ResourceName;
  /** 401 and 403 carry RFC 6750 error codes (`error="invalid_token"`): MCP clients read them. */
  bearerErrorCodes: boolean;
  /** Its rate budget already charged by its transport: read the caller's record itself. */
  rateLimitCounted?: boolean;
}

/** Who calls, as authentication found it. */
export interface Authenticated {
  caller: Caller;
  /**
   * The caller came from a copy of its record kept between calls (a shared store's, see
   * RedisKeyStore.findKeyByHash): a 403 made on it is made again on the record itself.
   */
  cached: boolean;
}

/**
 * Who calls: an active key (a bearer token starting `sk_`), a run's token (`sk_run_`: its parent,
 * within the run, docs/runs-and-ledger.md), or, with OAuth configured, the
 * principal of a valid access token (any other bearer token, docs/oauth.md). 401 otherwise, and
 * every failure counts against the client's failed-authentication limit (429 past it); an issuer
 * that cannot be asked is 503, never a guess. Two Authorization headers are refused, not guessed at.
 */
@Injectable()
export class Authentication {
  constructor(
    private readonly keys: KeysService,
    private readonly principals: PrincipalsService,
    private readonly failures: AuthFailureLimiter,
    private readonly challenges: AuthChallenges,
    private readonly runs: RunsService,
  ) {}

  /** `retried`: read the caller's record itself, not a copy kept between calls. */
  @Traced('check authenticate')
  async authenticate(call: Credentials, retried: boolean): Promise<Authenticated> {
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
    } else if (token.startsWith('sk_run_')) {
      const access = await this.runs.authenticate(token);
      if (access && 'ended' in access) detail = RUN_ENDED;
      else caller = access?.caller;
    } else if (this.principals.enabled && !token.startsWith('sk_')) {
      detail = 'Invalid access token';
      caller = await this.principals
        .authenticate(token, call.resource ?? 'api', { fresh })
        .catch(refusedToken);
    } else {
      caller = await this.keys.authenticate(token, { fresh });
    }
    // A run's caller is read from the records themselves on every call.
    if (caller) return { caller, cached: !fresh && !caller.run && mayBeCached(caller) };
    await this.failures.recordFailure(call.client);
    throw this.challenges.unauthenticated(detail, call);
  }
}

/** A token refused is no caller (401); anything else (a 503, a store failure) stands. */
function refusedToken(error: unknown): undefined {
  if (error instanceof InvalidAccessToken) return undefined;
  throw error;
}
