import { Inject, Injectable } from '@nestjs/common';
import { hash } from 'node:crypto';
import type { AuditActor } from '../audit';
import { AuditService } from '../audit';
import type { AuthenticatedPrincipal } from '../subjects';
import type { ResourceName } from '../kernel/auth/protected-resource';
import { ApiError } from '../kernel/errors/api-error';
import { Clock, utcDay } from '../kernel/common/clock';
import { OAuthSettings, Settings, SETTINGS } from '../kernel/settings/settings';
import {
  mayBeCached,
  NewPrincipalRecord,
  PrincipalChanges,
  PrincipalPosition,
  PrincipalRecord,
  PrincipalStore,
} from '../subjects';
import { UsageStore } from '../limits';
import { AccessTokens, InvalidAccessToken, VerifiedToken } from './access-tokens';
import { eventActor, WebhooksService } from '../webhooks';

/** Last-seen times are written at most this often per principal (as a key's last use). */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * A principal's id: a hash of issuer and subject. The client is no part of it, so a subject's
 * limits are one whatever the applications it uses; two issuers' subjects are two principals;
 * the id says nothing of either.
 */
export function principalId(issuer: string, subject: string): string {
  return `prn_${hash('sha256', JSON.stringify([issuer, subject]), 'hex').slice(0, 32)}`;
}

/** A principal in an event: who it is and its settings, never a token. */
function principalEventView(record: PrincipalRecord): Record<string, unknown> {
  const { id, issuer, subject, client_id, plan, daily_limit, monthly_limit, rate_limit } = record;
  return {
    id,
    issuer,
    subject,
    client_id,
    external_id: record.external_id,
    plan,
    daily_limit,
    monthly_limit,
    rate_limit,
    enabled: record.enabled,
  };
}

/** The refusal of a new subject once OAUTH_MAX_PRINCIPALS principals exist. */
export function noNewPrincipalText(max: number): string {
  return `This service accepts no new principal: the limit of ${max} is reached.`;
}

/**
 * Whom OAuth access tokens speak for. A verified token's principal is found, or made on its first
 * token, in the store, and becomes the call's caller: its plan (the one an operator set, else the
 * one the token's OAUTH_PLAN_CLAIM names, else OAUTH_DEFAULT_PLAN), its own limits, the token's
 * scopes and client. A disabled principal's tokens are refused at once, on every instance (its
 * record's revision, as a key's); a new subject past OAUTH_MAX_PRINCIPALS is refused (403).
 */
@Injectable()
export class PrincipalsService {
  private readonly oauth?: OAuthSettings;
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly store: PrincipalStore,
    private readonly usage: UsageStore,
    private readonly tokens: AccessTokens,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly webhooks: WebhooksService,
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
   * keys cannot be fetched; 403 for a new subject past OAUTH_MAX_PRINCIPALS. `fresh`: read the
   * principal's record itself, not a cached copy.
   */
  async authenticate(
    token: string,
    resource: ResourceName,
    { fresh = false }: { fresh?: boolean } = {},
  ): Promise<AuthenticatedPrincipal> {
    const verified = await this.tokens.verify(token, resource);
    const now = this.clock.now();
    const seen = {
      id: principalId(verified.issuer, verified.subject),
      issuer: verified.issuer,
      subject: verified.subject,
      client_id: verified.clientId,
      first_seen_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      external_id: verified.externalId ?? null,
    };
    let record = await this.ensure(seen, fresh);
    if (!record.enabled && !fresh && mayBeCached(record)) record = await this.ensure(seen, true);
    if (!record.enabled) throw new InvalidAccessToken('principal disabled');
    record = await this.followExternalId(record, verified);
    // What the no-escalation rule holds it to grows at once, not a minute later.
    if (verified.scopes.some((scope) => !record.scopes?.includes(scope))) {
      await this.store.addPrincipalScopes(record.id, verified.scopes);
    }
    await this.touch(record.id, now, verified);
    return this.callerOf(record, verified);
  }

  /**
   * The record with the external id its token's claim names (OAUTH_EXTERNAL_ID_CLAIM), written
   * when it differs: the claim is the issuer's word on whose account the subject is, so it wins
   * over one an operator set by PATCH (docs/decisions.md). A token without the claim, or with one
   * that is not an external id, changes nothing. Not audited: no operator acted.
   */
  private async followExternalId(
    record: PrincipalRecord,
    verified: VerifiedToken,
  ): Promise<PrincipalRecord> {
    const claimed = verified.externalId;
    if (claimed === undefined || claimed === record.external_id) return record;
    return (await this.store.updatePrincipal(record.id, { external_id: claimed })) ?? record;
  }

  private async ensure(seen: NewPrincipalRecord, fresh: boolean): Promise<PrincipalRecord> {
    const max = (this.oauth as OAuthSettings).maxPrincipals;
    const record = await this.store.ensurePrincipal(seen, { fresh, max });
    if (!record) throw new ApiError(403, noNewPrincipalText(max));
    return record;
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
      client_id: verified.clientId,
      external_id: record.external_id,
      scopes: verified.scopes,
      plan: this.planOf(record, verified.plan ?? undefined),
      daily_limit: record.daily_limit,
      monthly_limit: record.monthly_limit,
      rate_limit: record.rate_limit,
      revision: record.revision,
      expires_at: new Date(verified.expiresAtMs).toISOString(),
    };
  }

  private async touch(id: string, now: Date, verified: VerifiedToken): Promise<void> {
    const last = this.lastTouched.get(id) ?? 0;
    if (now.getTime() - last < TOUCH_INTERVAL_MS) return;
    if (this.lastTouched.size >= 10_000) this.lastTouched.clear();
    this.lastTouched.set(id, now.getTime());
    await this.store.touchPrincipal(id, {
      at: now.toISOString(),
      clientId: verified.clientId,
      tokenPlan: verified.plan ?? null,
    });
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
      await this.webhooks.publish('principal.updated', {
        principal: principalEventView(after),
        actor: eventActor(actor),
        changes: changed,
      });
    }
    return after;
  }

  /**
   * Deletes a principal and its usage history, audited as `principal.delete` with whom it was.
   * Its next token makes it anew. False when it was gone already.
   */
  async delete(id: string, actor: AuditActor): Promise<boolean> {
    const gone = await this.store.deletePrincipal(id);
    if (!gone) return false;
    this.lastTouched.delete(id);
    await this.usage.deleteUsage(id, utcDay(this.clock.now()));
    await this.audit.record(actor, 'principal.delete', id, {
      issuer: gone.issuer,
      subject: gone.subject,
    });
    return true;
  }

  /** How many principals there are, against OAUTH_MAX_PRINCIPALS (doctor). */
  async occupancy(): Promise<{ count: number; max: number } | undefined> {
    if (!this.oauth) return undefined;
    return { count: await this.store.countPrincipals(), max: this.oauth.maxPrincipals };
  }
}
