import { Inject, Injectable, Optional } from '@nestjs/common';
import { decodeJwt, errors, jwtVerify, type JWTPayload } from 'jose';
import { resourceUrl, type ResourceName } from '../kernel/auth/protected-resource';
import { isValidScope, ToolCatalog } from '../kernel/auth/scopes';
import { OAuthSettings, planNamed, Settings, SETTINGS } from '../kernel/settings/settings';
import { isExternalId } from '../subjects';
import { AuthorizationServers } from './authorization-servers';

/** The signature algorithms accepted: asymmetric only, never `none` nor a shared secret (HS*). */
export const ACCEPTED_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA', 'Ed25519'];
/** Seconds of clock difference allowed on `exp` and `nbf`. */
export const CLOCK_LEEWAY_SECONDS = 60;
/** Verified tokens kept (per resource) before the oldest is forgotten. */
const MAX_CACHED_TOKENS = 10_000;
/** Longer than any access token a provider issues; anything longer is refused unread. */
const MAX_TOKEN_LENGTH = 8_192;
/** The latest time a Date holds (ECMA-262 §21.4.1.1). */
const MAX_DATE_MS = 8.64e15;
/** A compact JWS: three base64url parts (the signature may be empty only to be refused later). */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** What a verified access token says: whom it speaks for, what it grants, until when. */
export interface VerifiedToken {
  issuer: string;
  subject: string;
  clientId: string | null;
  /** Its scopes the service knows (`scope`, else `scp`); others are ignored. */
  scopes: string[];
  /** The plan its OAUTH_PLAN_CLAIM names, when that is a plan; undefined otherwise. */
  plan?: string;
  /**
   * The external id its OAUTH_EXTERNAL_ID_CLAIM names, when that is one (text of 1 to 200
   * characters, a label); undefined otherwise.
   */
  externalId?: string;
  /** `exp`, in milliseconds. */
  expiresAtMs: number;
}

/** Any reason to refuse a token as `Invalid access token` (401). */
export class InvalidAccessToken extends Error {}

/** Errors of jose that are the token's fault (401); any other is the issuer's (503). */
const TOKEN_FAULTS = new Set<string>([
  errors.JWTClaimValidationFailed.code,
  errors.JWTExpired.code,
  errors.JOSEAlgNotAllowed.code,
  errors.JOSENotSupported.code,
  errors.JWSInvalid.code,
  errors.JWTInvalid.code,
  errors.JWKSNoMatchingKey.code,
  errors.JWKSMultipleMatchingKeys.code,
  errors.JWSSignatureVerificationFailed.code,
  errors.JWKInvalid.code,
]);

/**
 * Verifies OAuth access tokens (JWTs, RFC 9068) with jose: signed by a configured issuer's key
 * (ACCEPTED_ALGORITHMS), `iss` that issuer, `aud` the resource it is used on (RFC 8707:
 * `PUBLIC_URL/mcp` on /mcp, `PUBLIC_URL` elsewhere; or one of OAUTH_AUDIENCES), `exp` ahead and
 * `nbf` past (60 s of leeway), a `sub`. A verified token is kept until it expires (bounded), so
 * each of its later calls costs a lookup, not a signature check.
 */
@Injectable()
export class AccessTokens {
  private readonly oauth?: OAuthSettings;
  private readonly cache: Record<ResourceName, Map<string, VerifiedToken>> = {
    api: new Map(),
    mcp: new Map(),
  };

  constructor(
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly servers: AuthorizationServers,
    @Optional() private readonly catalog?: ToolCatalog,
  ) {
    this.oauth = settings.oauth;
  }

  /**
   * The token, verified for `resource`; InvalidAccessToken when it is not good there, or
   * IssuerUnavailable (503) when its issuer's keys cannot be fetched.
   */
  verify(token: string, resource: ResourceName): Promise<VerifiedToken> | VerifiedToken {
    const kept = this.cache[resource].get(token);
    if (kept) {
      if (Date.now() < kept.expiresAtMs + CLOCK_LEEWAY_SECONDS * 1000) return kept;
      this.cache[resource].delete(token);
      throw new InvalidAccessToken('expired');
    }
    return this.verifyAnew(token, resource);
  }

  private async verifyAnew(token: string, resource: ResourceName): Promise<VerifiedToken> {
    const oauth = this.oauth;
    if (!oauth || token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) {
      throw new InvalidAccessToken('not a JWT');
    }
    const iss = issuerOf(token);
    if (iss === undefined || !this.servers.knows(iss)) {
      throw new InvalidAccessToken('not from a configured issuer');
    }
    const keys = await this.servers.keysOf(iss);
    const audience = [resourceUrl(oauth.publicUrl, resource), ...oauth.audiences];
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: iss,
        audience,
        algorithms: ACCEPTED_ALGORITHMS,
        clockTolerance: CLOCK_LEEWAY_SECONDS,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      if (error instanceof errors.JOSEError && TOKEN_FAULTS.has(error.code)) {
        throw new InvalidAccessToken(error.code);
      }
      throw this.servers.unavailable(iss, error);
    }
    const verified = this.read(iss, payload);
    this.keep(resource, token, verified);
    return verified;
  }

  private read(issuer: string, payload: JWTPayload): VerifiedToken {
    // RFC 7519 §4.1.2: a StringOrURI; jose checks only that it is there.
    const subject = stringClaim(payload.sub);
    if (subject === undefined) throw new InvalidAccessToken('sub is not a string');
    const expiresAtMs = (payload.exp as number) * 1000;
    // jose takes any number; a date past what a Date holds is no expiry at all.
    if (!(expiresAtMs <= MAX_DATE_MS)) throw new InvalidAccessToken('exp is past any date');
    const clientId = stringClaim(payload.client_id) ?? stringClaim(payload.azp) ?? null;
    const named = this.oauth?.planClaim ? stringClaim(payload[this.oauth.planClaim]) : undefined;
    const externalIdClaim = this.oauth?.externalIdClaim;
    const externalId = externalIdClaim ? payload[externalIdClaim] : undefined;
    return {
      issuer,
      subject,
      clientId,
      scopes: scopesOf(payload, this.catalog?.names() ?? []),
      plan: named !== undefined && planNamed(this.settings.plans, named) ? named : undefined,
      // A claim the API would refuse as an external id is ignored, as a plan that is none.
      externalId: isExternalId(externalId) ? externalId : undefined,
      expiresAtMs,
    };
  }

  private keep(resource: ResourceName, token: string, verified: VerifiedToken): void {
    const kept = this.cache[resource];
    if (kept.size >= MAX_CACHED_TOKENS) {
      // The oldest first: a Map iterates in insertion order.
      kept.delete(kept.keys().next().value as string);
    }
    kept.set(token, verified);
  }
}

/** The unverified `iss` of a token, to choose whose keys verify it; undefined when unreadable. */
function issuerOf(token: string): string | undefined {
  try {
    const iss = decodeJwt(token).iss;
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    return undefined;
  }
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= 1000 ? value : undefined;
}

/**
 * The scopes a token grants that the service knows: `scope` (space-separated, RFC 9068), else
 * `scp` (a string or a list, as Entra ID and Okta write it).
 */
function scopesOf(payload: JWTPayload, tools: readonly string[]): string[] {
  const raw = payload.scope ?? payload.scp;
  const words = typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw : [];
  const known = words.filter((w): w is string => typeof w === 'string' && isValidScope(w, tools));
  return [...new Set(known)];
}
