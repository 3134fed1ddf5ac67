import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../kernel/common/clock';
import { AuditEntry, AuditStore } from './audit.store';
import { AUDIT_LOG_FIELD, type AuditActor } from './audit.context';

/** Entries are kept this many days. */
export const AUDIT_KEEP_DAYS = 90;

/** What the audit trail records: the one list its view, its search and its type are made of. */
export const AUDIT_ACTIONS = [
  'api_key.create',
  'api_key.update',
  'api_key.rotate',
  'api_key.revoke',
  'config.set',
  'doctor.fix',
  'principal.update',
  'principal.delete',
  'webhook.created',
  'webhook.updated',
  'webhook.secret_rotated',
  'webhook.deleted',
  'webhook.disabled',
  'run.created',
  'run.updated',
  'run.deleted',
  'source.created',
  'source.updated',
  'source.deleted',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * The audit trail: who changed which key or setting, when, in which request. Entries live in the
 * store (shared by every instance, 90 days) and each is also one JSON log line. Callers pass
 * details that hold no secret: settings granted, `{field: {from, to}}`, masked values.
 */
@Injectable()
export class AuditService {
  private readonly logger = new Logger('Audit');

  constructor(
    private readonly store: AuditStore,
    private readonly clock: Clock,
  ) {}

  private keepSince(now: Date): string {
    return new Date(now.getTime() - AUDIT_KEEP_DAYS * 86_400_000).toISOString();
  }

  /** Records one action by `actor` (a key, the CLI or the service at start-up). */
  async record(
    actor: AuditActor,
    action: AuditAction,
    target: string,
    details: Record<string, unknown> = {},
  ): Promise<AuditEntry> {
    const now = this.clock.now();
    const entry = await this.store.appendAudit(
      {
        at: now.toISOString(),
        actor_key_id: actor.actorKeyId,
        actor_principal_id: actor.actorPrincipalId ?? null,
        action,
        target,
        request_id: actor.requestId,
        details: {
          ...details,
          ...(actor.actorClientId ? { client_id: actor.actorClientId } : {}),
          ...(actor.source ? { source: actor.source } : {}),
        },
      },
      this.keepSince(now),
    );
    this.logger.log({ [AUDIT_LOG_FIELD]: entry }, `Audit: ${action} ${target}`);
    return entry;
  }

  /** Entries newest first, before entry `before` when given, within the 90 days kept. */
  list(limit: number, before?: number): Promise<AuditEntry[]> {
    return this.store.listAudit({ limit, before, since: this.keepSince(this.clock.now()) });
  }
}
