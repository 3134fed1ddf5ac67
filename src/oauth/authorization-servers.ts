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

/** A request to an authorization server (metadata, keys) gives up after this long. */
const FETCH_TIMEOUT_MS = 5_000;
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
 * 5 seconds later, so a server that is down is not asked once per token.
 */
@Injectable()
export class AuthorizationServers implements OnApplicationBootstrap {
  private readonly logger = new Logger('OAuth');
  private readonly issuers = new Map<string, Issuer>();
  private readonly oauth?: OAuthSettings;

  constructor(
    @Inject(SETTINGS) settings: Settings,
    private readonly clock: Clock,
  ) {
    this.oauth = settings.oauth;
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
      jwksUri = await this.jwksUriOf(issuer.issuer);
    } catch (error) {
      this.failed(issuer, 'metadata', error);
      throw error;
    }
    const remote = createRemoteJWKSet(jwksUri, {
      // jose's own refetch for an unknown kid counts its pause from any fetch (the start-up's, the
      // ten-minute one): it never refetches by itself, keyFor decides.
      cooldownDuration: Infinity,
      timeoutDuration: FETCH_TIMEOUT_MS,
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

  /** jose's fetch of the keys, refused while the last failure is recent; a failure remembered. */
  private async fetchKeys(issuer: Issuer, url: string, init: RequestInit): Promise<Response> {
    if (Date.now() - issuer.failedAt < RETRY_AFTER_FAILURE_MS) throw new TooSoonAfterFailure();
    const response = await fetch(url, init);
    if (response.status === 200) issuer.failedAt = 0;
    return response;
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

  /**
   * The issuer's `jwks_uri`, from the first metadata document found: RFC 8414's (the well-known
   * path inserted before the issuer's path), then OpenID Connect's (appended, then inserted). The
   * document must name this very issuer (RFC 8414 §3.3).
   */
  private async jwksUriOf(issuer: string): Promise<URL> {
    const failures: string[] = [];
    for (const url of metadataUrls(issuer)) {
      try {
        const response = await fetch(url, {
          headers: { accept: 'application/json' },
          signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        });
        if (response.status !== 200) {
          failures.push(`${url}: HTTP ${response.status}`);
          continue;
        }
        const metadata = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
        if (metadata.issuer !== issuer) {
          failures.push(`${url}: names issuer ${JSON.stringify(metadata.issuer)}`);
          continue;
        }
        if (typeof metadata.jwks_uri !== 'string' || !/^https?:\/\//.test(metadata.jwks_uri)) {
          failures.push(`${url}: no jwks_uri`);
          continue;
        }
        return new URL(metadata.jwks_uri);
      } catch (error) {
        failures.push(`${url}: ${(error as Error).message}`);
      }
    }
    throw new Error(`no metadata (${failures.join('; ')})`);
  }
}

/** Where an issuer's metadata may be (RFC 8414 §3.1, OpenID Connect Discovery §4, both forms). */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  const inserted = (suffix: string) => `${url.origin}/.well-known/${suffix}${path}`;
  return [
    ...new Set([
      inserted('oauth-authorization-server'),
      `${url.origin}${path}/.well-known/openid-configuration`,
      inserted('openid-configuration'),
    ]),
  ];
}

function secondsOf(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
