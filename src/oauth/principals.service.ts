import { Inject, Injectable } from '@nestjs/common';
import { hash } from 'node:crypto';
import type { AuditActor } from '../audit/audit.context';
import { AuditService } from '../audit/audit.service';
import type { AuthenticatedPrincipal } from '../auth/caller';
import type { ResourceName } from '../auth/protected-resource';
import { Clock } from '../limits/clock';
import { OAuthSettings, Settings, SETTINGS } from '../settings/settings';
import { mayBeKept } from '../store/keys/key.store';
import {
  PrincipalChanges,
  PrincipalPosition,
  PrincipalRecord,
  PrincipalStore,
} from '../store/principals/principal.store';
import { AccessTokens, InvalidAccessToken, VerifiedToken } from './access-tokens';

/** Last-seen times are written at most this often per principal (as a key's last use). */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * A principal's id: a hash of issuer, client and subject, so that the same subject through two
 * clients (or two issuers) is two principals, each with its own limits, and the id says nothing.
 */
export function principalId(issuer: string, clientId: string | null, subject: string): string {
  return `prn_${hash('sha256', JSON.stringify([issuer, clientId ?? '', subject]), 'hex').slice(0, 32)}`;
}

/**
 * Whom OAuth access tokens speak for. A verified token's principal is found, or made on its first
 * token, in the store, and becomes the call's caller: its plan (the one an operator set, else the
 * one the token's OAUTH_PLAN_CLAIM names, else OAUTH_DEFAULT_PLAN), its own limits, the token's
 * scopes. A disabled principal's tokens are refused at once, on every instance (its record's
 * revision, as a key's).
 */
@Injectable()
export class Principals {
  private readonly oauth?: OAuthSettings;
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly store: PrincipalStore,
    private readonly tokens: AccessTokens,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    @Inject(SETTINGS) settings: Settings,
  ) {
    this.oauth = settings.oauth;
  }

  /** Whether access tokens are accepted at all (OAUTH_ISSUERS). */
  get enabled(): boolean {
    return this.oauth !== undefined;
  }

  /**
   * The caller an access token used on `resource` speaks for. InvalidAccessToken for a token that
   * is not good there or whose principal is disabled; IssuerUnavailable (503) when its issuer's
   * keys cannot be fetched. `fresh`: read the principal's record itself, not a kept copy.
   */
  async authenticate(
    token: string,
    resource: ResourceName,
    { fresh = false }: { fresh?: boolean } = {},
  ): Promise<AuthenticatedPrincipal> {
    const verified = await this.tokens.verify(token, resource);
    const now = this.clock.now();
    const seen = {
      id: principalId(verified.issuer, verified.clientId, verified.subject),
      issuer: verified.issuer,
      subject: verified.subject,
      client_id: verified.clientId,
      first_seen_at: now.toISOString(),
      last_seen_at: now.toISOString(),
    };
    let record = await this.store.ensurePrincipal(seen, { fresh });
    if (!record.enabled && !fresh && mayBeKept(record)) {
      record = await this.store.ensurePrincipal(seen, { fresh: true });
    }
    if (!record.enabled) throw new InvalidAccessToken('principal disabled');
    await this.touch(record.id, now, verified.plan ?? null);
    return this.callerOf(record, verified);
  }

  /**
   * The plan a principal has: the operator's, else its token's (the one in hand, else the last
   * one seen), else OAUTH_DEFAULT_PLAN.
   */
  planOf(record: Pick<PrincipalRecord, 'plan' | 'token_plan'>, tokenPlan?: string): string {
    return (
      record.plan ?? tokenPlan ?? record.token_plan ?? (this.oauth as OAuthSettings).defaultPlan
    );
  }

  private callerOf(record: PrincipalRecord, verified: VerifiedToken): AuthenticatedPrincipal {
    return {
      kind: 'principal',
      id: record.id,
      issuer: record.issuer,
      subject: record.subject,
      client_id: record.client_id,
      scopes: verified.scopes,
      plan: this.planOf(record, verified.plan ?? undefined),
      daily_limit: record.daily_limit,
      monthly_limit: record.monthly_limit,
      rate_limit: record.rate_limit,
      revision: record.revision,
      expires_at: new Date(verified.expiresAtMs).toISOString(),
    };
  }

  private async touch(id: string, now: Date, tokenPlan: string | null): Promise<void> {
    const last = this.lastTouched.get(id) ?? 0;
    if (now.getTime() - last < TOUCH_INTERVAL_MS) return;
    if (this.lastTouched.size >= 10_000) this.lastTouched.clear();
    this.lastTouched.set(id, now.getTime());
    await this.store.touchPrincipal(id, now.toISOString(), tokenPlan);
  }

  list(page?: { after?: PrincipalPosition; limit?: number }): Promise<PrincipalRecord[]> {
    return this.store.listPrincipals(page);
  }

  find(id: string): Promise<PrincipalRecord | undefined> {
    return this.store.findPrincipal(id);
  }

  /** Changes a principal's settings, audited as `principal.update` with `{field: {from, to}}`. */
  async update(
    before: PrincipalRecord,
    changes: PrincipalChanges,
    actor: AuditActor,
  ): Promise<PrincipalRecord | undefined> {
    const after = await this.store.updatePrincipal(before.id, changes);
    if (!after) return undefined;
    const changed: Record<string, { from: unknown; to: unknown }> = {};
    for (const field of Object.keys(changes) as (keyof PrincipalChanges)[]) {
      if (before[field] !== after[field])
        changed[field] = { from: before[field], to: after[field] };
    }
    if (Object.keys(changed).length) {
      await this.audit.record(actor, 'principal.update', before.id, changed);
    }
    return after;
  }
}
