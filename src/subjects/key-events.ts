import { Injectable } from '@nestjs/common';
import { AuditService, type AuditActor } from '../audit';
import { Clock } from '../kernel/common/clock';
import { eventActor, WebhooksService, type WebhookEventType } from '../webhooks';
import { toView } from './api-key.view';
import type { ApiKeyRecord } from './key.store';

/** What a key event tells of the key: its view, less its usage fields. */
const KEY_EVENT_FIELDS = [
  'id',
  'name',
  'prefix',
  'scopes',
  'plan',
  'enabled',
  'status',
  'created_at',
  'expires_at',
  'revoked_at',
  'external_id',
] as const;

/** What a new key was granted, for the audit trail: its settings, never its secret or prefix. */
export function granted(record: ApiKeyRecord): Record<string, unknown> {
  return {
    name: record.name,
    scopes: record.scopes,
    plan: record.plan,
    daily_limit: record.daily_limit,
    monthly_limit: record.monthly_limit,
    rate_limit: record.rate_limit,
    expires_at: record.expires_at,
    external_id: record.external_id,
  };
}

/** A key event's data: the key's view (never its secret) and who acted. */
export function keyEventData(
  record: ApiKeyRecord,
  actor: AuditActor,
  now: Date,
): Record<string, unknown> {
  const view = toView(record, now);
  const key = Object.fromEntries(KEY_EVENT_FIELDS.map((field) => [field, view[field]]));
  return { key, actor: eventActor(actor) };
}

/** The audited changes of a key, and the event each is announced as. */
export const KEY_EVENT_OF = {
  'api_key.create': 'api_key.created',
  'api_key.update': 'api_key.updated',
  'api_key.rotate': 'api_key.rotated',
  'api_key.revoke': 'api_key.revoked',
} as const satisfies Record<string, WebhookEventType>;

export type KeyAuditAction = keyof typeof KEY_EVENT_OF;

/** A key's changes as others learn of them: the audit trail, and the webhooks subscribed. */
@Injectable()
export class KeyChangeLog {
  constructor(
    private readonly audit: AuditService,
    private readonly webhooks: WebhooksService,
    private readonly clock: Clock,
  ) {}

  /**
   * Audits a change of a key, and announces it (`api_key.*`): an update with its changes (and
   * `api_key.enabled` or `.disabled` when it turned the key on or off), a rotation with until
   * when the old secret works.
   */
  async recorded(
    actor: AuditActor,
    action: KeyAuditAction,
    record: ApiKeyRecord,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.audit.record(actor, action, record.id, details);
    if (action === 'api_key.update') {
      await this.announce('api_key.updated', record, actor, { changes: details });
      if (details.enabled) {
        const type = record.enabled ? 'api_key.enabled' : 'api_key.disabled';
        await this.announce(type, record, actor);
      }
    } else if (action === 'api_key.rotate') {
      const extra = { grace_until: record.previous_key_expires_at };
      await this.announce('api_key.rotated', record, actor, extra);
    } else {
      await this.announce(KEY_EVENT_OF[action], record, actor);
    }
  }

  /** An event about a key to the webhooks subscribed to it. */
  announce(
    type: WebhookEventType,
    record: ApiKeyRecord,
    actor: AuditActor,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const data = keyEventData(record, actor, this.clock.now());
    return this.webhooks.publish(type, { ...data, ...extra });
  }
}
