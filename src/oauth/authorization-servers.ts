import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import {
  createRemoteJWKSet,
  customFetch,
  errors,
  type CompactJWSHeaderParameters,
  type FlattenedJWSInput,
  type JWTVerifyGetKey,
} from 'jose';
import { ApiError } from '../kernel/errors/api-error';
import { Clock } from '../kernel/common/clock';
import { retryAfterText } from '../limits';
import { OAuthSettings, Settings, SETTINGS } from '../kernel/settings/settings';
import { fetchBounded, IssuerFetchLimits } from './issuer-fetch';
import { jwksUriOf } from './issuer-metadata';

/** After a failed request, the next is made no sooner than this: a 503 in between. */
const RETRY_AFTER_FAILURE_MS = 5_000;

/** An issuer's keys as jose fetches and keeps them (createRemoteJWKSet). */
type RemoteKeys = JWTVerifyGetKey & { reload(): Promise<void>; readonly fresh: boolean };

/** What is known of one configured issuer. */
interface Issuer {
  readonly issuer: string;
  /** Its keys as jose keeps them, once its metadata named them. */
  remote?: RemoteKeys;
  /** What verifies its tokens: `remote`, fetched again for an unknown `kid` (keyFor). */
  keys?: JWTVerifyGetKey;
  /** When an unknown `kid` last made its keys be fetched again; -Infinity: never. */
  kidRefetchAt: number;
  /** That fetch while under way, shared by every token that waits for it. */
  kidRefetch?: Promise<void>;
  /** The discovery under way, shared by every token that waits for it. */
  discovering?: Promise<void>;
  /** When the last request to it (metadata or keys) failed, and why; 0: none failed since. */
  failedAt: number;
  failure?: string;
}

/**
 * An issuer's keys or metadata cannot be had now: 503 with Retry-After, never a guess (a token is
 * neither accepted nor refused on a server that cannot be asked).
 */
export class IssuerUnavailable extends ApiError {
  constructor(retryAfterSeconds: number) {
    super(
      503,
      `Service temporarily unavailable: the authorization server's keys cannot be fetched. ${retryAfterText(retryAfterSeconds)}`,
      { 'Retry-After': retryAfterSeconds },
    );
  }
}

/** A fetch refused because the last one failed too recently (RETRY_AFTER_FAILURE_MS). */
class TooSoonAfterFailure extends Error {
  constructor() {
    super('not asked again so soon after a failure');
  }
}

/**
 * The authorization servers of OAUTH_ISSUERS (docs/oauth.md): each one's metadata, discovered at
 * start-up (RFC 8414, else OpenID Connect Discovery) and its keys (JWKS) fetched and kept by jose,
 * which fetches them again every 10 minutes. A token that names a key not held fetches them at once
 * when no other unknown `kid` did so in the last OAUTH_JWKS_REFETCH_MS (a key published after a
 * rotation is accepted from its first token; a storm of invented `kid`s costs the issuer one fetch
 * per period). An issuer that cannot be reached at start-up is a warning, and
 * a 503 for its tokens until it answers; after any failed request the next is made no sooner than
 * 5 seconds later, so a server that is down is not asked once per token. Every answer is bounded
 * (fetchBounded: OAUTH_ISSUER_MAX_BYTES, OAUTH_ISSUER_TIMEOUT_MS, no redirect followed): one that breaks a bound
 * is the issuer's failure, as an issuer that cannot be reached.
 */
@Injectable()
export class AuthorizationServers implements OnApplicationBootstrap {
  private readonly logger = new Logger('OAuth');
  private readonly issuers = new Map<string, Issuer>();
  private readonly oauth?: OAuthSettings;
  private readonly limits: IssuerFetchLimits;

  constructor(
    @Inject(SETTINGS) settings: Settings,
    private readonly clock: Clock,
  ) {
    this.oauth = settings.oauth;
    this.limits = {
      maxBytes: this.oauth?.issuerMaxBytes ?? 0,
      timeoutMs: this.oauth?.issuerTimeoutMs ?? 0,
    };
    for (const issuer of this.oauth?.issuers ?? []) {
      this.issuers.set(issuer, { issuer, failedAt: 0, kidRefetchAt: -Infinity });
    }
  }

  /** Discovery starts with the service and does not hold up its start: tokens wait for it. */
  onApplicationBootstrap(): void {
    for (const issuer of this.issuers.values()) void this.discover(issuer).catch(() => undefined);
  }

  /** Whether `iss` names a configured issuer (exactly, as RFC 8414 compares them). */
  knows(iss: string): boolean {
    return this.issuers.has(iss);
  }

  /**
   * The issuers and whether each answers, for doctor: an issuer not yet read is asked now (its
   * discovery under way awaited).
   */
  async probe(): Promise<{ issuer: string; ok: boolean; failure?: string }[]> {
    await Promise.allSettled([...this.issuers.values()].map((issuer) => this.recheck(issuer)));
    return [...this.issuers.values()].map(({ issuer, keys, failedAt, failure }) => ({
      issuer,
      ok: keys !== undefined && failedAt === 0,
      ...(failedAt ? { failure } : {}),
    }));
  }

  /** The issuer's keys, discovering it first if need be; IssuerUnavailable (503) when it cannot. */
  async keysOf(iss: string): Promise<JWTVerifyGetKey> {
    const issuer = this.issuers.get(iss);
    if (!issuer) throw new Error(`Not a configured issuer: ${iss}`);
    if (issuer.keys) return issuer.keys;
    this.refuseIfTooSoon(issuer);
    await this.discover(issuer).catch(() => undefined);
    if (!issuer.keys) throw new IssuerUnavailable(secondsOf(RETRY_AFTER_FAILURE_MS));
    return issuer.keys;
  }

  /** A failure to fetch an issuer's keys (the verifier met it): 503, and the failure remembered. */
  unavailable(iss: string, error: unknown): IssuerUnavailable {
    const issuer = this.issuers.get(iss);
    if (issuer && !(error instanceof TooSoonAfterFailure)) this.failed(issuer, 'keys', error);
    const since = issuer ? Date.now() - issuer.failedAt : 0;
    return new IssuerUnavailable(secondsOf(RETRY_AFTER_FAILURE_MS - since));
  }

  /** An issuer not yet read is discovered; one whose last request failed fetches its keys again. */
  private async recheck(issuer: Issuer): Promise<void> {
    if (!issuer.remote) return this.discover(issuer);
    if (issuer.failedAt === 0) return;
    try {
      await issuer.remote.reload();
    } catch (error) {
      if (!(error instanceof TooSoonAfterFailure)) this.failed(issuer, 'keys', error);
    }
  }

  private refuseIfTooSoon(issuer: Issuer): void {
    const since = Date.now() - issuer.failedAt;
    if (since < RETRY_AFTER_FAILURE_MS) {
      throw new IssuerUnavailable(secondsOf(RETRY_AFTER_FAILURE_MS - since));
    }
  }

  private discover(issuer: Issuer): Promise<void> {
    issuer.discovering ??= this.readMetadata(issuer).finally(() => {
      issuer.discovering = undefined;
    });
    return issuer.discovering;
  }

  private async readMetadata(issuer: Issuer): Promise<void> {
    let jwksUri: URL;
    try {
      jwksUri = await jwksUriOf(issuer.issuer, this.limits);
    } catch (error) {
      this.failed(issuer, 'metadata', error);
      throw error;
    }
    const remote = createRemoteJWKSet(jwksUri, {
      // jose's own refetch for an unknown kid counts its pause from any fetch (the start-up's, the
      // ten-minute one): it never refetches by itself, keyFor decides.
      cooldownDuration: Infinity,
      timeoutDuration: this.limits.timeoutMs,
      [customFetch]: (url: string, init: RequestInit) => this.fetchKeys(issuer, url, init),
    }) as RemoteKeys;
    try {
      await remote.reload();
    } catch (error) {
      this.failed(issuer, 'keys', error);
      throw error;
    }
    issuer.remote = remote;
    issuer.keys = (header, token) => this.keyFor(issuer, remote, header, token);
    issuer.failedAt = 0;
    this.logger.log(`Authorization server ${issuer.issuer}: keys at ${jwksUri.href}`);
  }

  /**
   * The key that verifies a token: one held, else, for a `kid` not held, one of the keys fetched
   * again at once, unless an unknown `kid` made them be fetched less than OAUTH_JWKS_REFETCH_MS
   * ago. After a failed fetch the next unknown `kid` asks again (the failure's own pause applies).
   */
  private async keyFor(
    issuer: Issuer,
    remote: RemoteKeys,
    header: CompactJWSHeaderParameters,
    token: FlattenedJWSInput,
  ): Promise<Awaited<ReturnType<JWTVerifyGetKey>>> {
    try {
      return await remote(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || !this.mayRefetch(issuer)) throw error;
    }
    issuer.kidRefetch ??= this.refetch(issuer, remote);
    await issuer.kidRefetch;
    return remote(header, token);
  }

  private mayRefetch(issuer: Issuer): boolean {
    if (issuer.kidRefetch || issuer.failedAt !== 0) return true;
    const since = this.clock.now().getTime() - issuer.kidRefetchAt;
    return since >= (this.oauth as OAuthSettings).jwksRefetchMs;
  }

  private refetch(issuer: Issuer, remote: RemoteKeys): Promise<void> {
    issuer.kidRefetchAt = this.clock.now().getTime();
    return remote.reload().finally(() => {
      issuer.kidRefetch = undefined;
    });
  }

  /**
   * jose's fetch of the keys, refused while the last failure is recent, and bounded as every
   * request to an issuer is (fetchBounded): jose reads the answer held here.
   */
  private async fetchKeys(issuer: Issuer, url: string, init: RequestInit): Promise<Response> {
    if (Date.now() - issuer.failedAt < RETRY_AFTER_FAILURE_MS) throw new TooSoonAfterFailure();
    const { signal, headers } = init;
    const answer = await fetchBounded(url, this.limits, { headers, signal: signal ?? undefined });
    if (answer.status === 200) issuer.failedAt = 0;
    const type = answer.headers.get('content-type') ?? 'application/json';
    return new Response(answer.body, { status: answer.status, headers: { 'content-type': type } });
  }

  private failed(issuer: Issuer, what: string, error: unknown): void {
    const first = issuer.failedAt === 0;
    issuer.failedAt = Date.now();
    issuer.failure = `${what}: ${(error as Error).message ?? String(error)}`;
    if (first) {
      this.logger.warn(
        `Authorization server ${issuer.issuer} cannot be read (${issuer.failure}); its tokens are answered 503 until it can`,
      );
    }
  }
}

function secondsOf(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
