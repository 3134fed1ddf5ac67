import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import { PLUCKED, WEBHOOK_MIGRATIONS, WEBHOOK_STATEMENTS } from './sqlite-webhook.schema';
import {
  AttemptOutcome,
  BACKLOG_ERROR,
  BackloggedDelivery,
  ClaimLimits,
  DisabledReason,
  EndpointChanges,
  FailingSpell,
  roomOf,
  claimOrder,
  roundRobin,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookStore,
} from './webhook.store';

interface EndpointRow {
  id: string;
  url: string;
  events: string;
  description: string | null;
  enabled: number;
  disabled_reason: WebhookEndpoint['disabled_reason'];
  secrets: string;
  failing_since: string | null;
  consecutive_failures: number;
  backlog_failed: number;
  backlog_failed_at: string | null;
  created_at: string;
  updated_at: string;
}

type StatementName = keyof typeof WEBHOOK_STATEMENTS;

type SpellRow = Pick<EndpointRow, 'id' | 'consecutive_failures'>;

const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
  ...row,
  events: JSON.parse(row.events) as string[],
  enabled: row.enabled === 1,
  secrets: JSON.parse(row.secrets) as WebhookEndpoint['secrets'],
});

const toRow = (endpoint: Partial<WebhookEndpoint>): Partial<EndpointRow> => {
  const row: Record<string, unknown> = { ...endpoint };
  if (endpoint.events !== undefined) row.events = JSON.stringify(endpoint.events);
  if (endpoint.secrets !== undefined) row.secrets = JSON.stringify(endpoint.secrets);
  if (endpoint.enabled !== undefined) row.enabled = endpoint.enabled ? 1 : 0;
  return row;
};

/** A change's columns, by name: only these may be set (the names come from code, not clients). */
const CHANGEABLE = new Set([
  'url',
  'events',
  'description',
  'enabled',
  'disabled_reason',
  'secrets',
  'failing_since',
  'consecutive_failures',
  'updated_at',
]);

/** Endpoints and the outbox in the embedded store: `webhook_endpoints`, `webhook_deliveries`. */
export class SqliteWebhookStore extends WebhookStore {
  private readonly statements: Record<StatementName, Database.Statement>;

  constructor(private readonly sqlite: SqliteDatabase) {
    super();
    sqlite.ensureSchema('webhooks', WEBHOOK_MIGRATIONS);
    this.statements = Object.fromEntries(
      Object.entries(WEBHOOK_STATEMENTS).map(([name, sql]) => {
        const statement = sqlite.db.prepare(sql);
        return [name, PLUCKED.has(name as StatementName) ? statement.pluck() : statement];
      }),
    ) as Record<StatementName, Database.Statement>;
  }

  createEndpoint(endpoint: WebhookEndpoint, max: number): Promise<boolean> {
    const { count, insertEndpoint } = this.statements;
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction(() => {
        if ((count.get() as number) >= max) return false;
        insertEndpoint.run(toRow(endpoint));
        return true;
      })(),
    );
  }

  getEndpoint(id: string): Promise<WebhookEndpoint | undefined> {
    return this.sqlite.attempt(() => {
      const row = this.statements.endpoint.get(id) as EndpointRow | undefined;
      return row && toEndpoint(row);
    });
  }

  listEndpoints(): Promise<WebhookEndpoint[]> {
    return this.sqlite.attempt(() =>
      (this.statements.endpoints.all() as EndpointRow[]).map(toEndpoint),
    );
  }

  updateEndpoint(id: string, changes: EndpointChanges): Promise<WebhookEndpoint | undefined> {
    const row = toRow(changes);
    const columns = Object.keys(row).filter((name) => CHANGEABLE.has(name));
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction(() => {
        if (columns.length > 0) {
          const set = columns.map((name) => `${name} = @${name}`).join(', ');
          this.sqlite.db.prepare(`UPDATE webhook_endpoints SET ${set} WHERE id = @id`).run({
            ...row,
            id,
          });
        }
        const after = this.statements.endpoint.get(id) as EndpointRow | undefined;
        return after && toEndpoint(after);
      })(),
    );
  }

  disableEndpoint(id: string, reason: DisabledReason, at: string): Promise<boolean> {
    return this.sqlite.attempt(() => this.statements.disable.run(reason, at, id).changes > 0);
  }

  deleteEndpoint(id: string): Promise<boolean> {
    const { deleteEndpoint, deleteDeliveriesOf, deletePendingOf } = this.statements;
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction(() => {
        deleteDeliveriesOf.run(id);
        deletePendingOf.run(id);
        return deleteEndpoint.run(id).changes > 0;
      })(),
    );
  }

  enqueue(
    deliveries: WebhookDelivery[],
    maxPending: number,
    at: string,
  ): Promise<BackloggedDelivery[]> {
    const { insertDelivery } = this.statements;
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction(() => {
        for (const delivery of deliveries) insertDelivery.run(delivery);
        const endpoints = new Set(deliveries.map((delivery) => delivery.endpoint_id));
        return [...endpoints].flatMap((endpointId) => this.failPast(endpointId, maxPending, at));
      })(),
    );
  }

  /** The endpoint's oldest pending failed unsent, past `maxPending` of them (in a transaction). */
  private failPast(endpointId: string, maxPending: number, at: string): BackloggedDelivery[] {
    const { pendingOf, oldestPending, failUnsent, countBacklog } = this.statements;
    const over = ((pendingOf.get(endpointId) as number | undefined) ?? 0) - maxPending;
    if (over <= 0) return [];
    const oldest = oldestPending.all(endpointId, over) as BackloggedDelivery[];
    for (const delivery of oldest) failUnsent.run(BACKLOG_ERROR, delivery.id);
    countBacklog.run(oldest.length, at, endpointId);
    return oldest;
  }

  claimDue(now: string, leaseUntil: string, limits: ClaimLimits): Promise<WebhookDelivery[]> {
    const { spells, dueOf, lease } = this.statements;
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction(() => {
        const endpoints = claimOrder(spells.all() as SpellRow[], limits);
        const lists = endpoints.map((endpoint) => {
          const room = roomOf(endpoint, limits);
          return room > 0 ? (dueOf.all(endpoint.id, now, now, room) as WebhookDelivery[]) : [];
        });
        const taken = roundRobin(lists, limits.total);
        for (const delivery of taken) lease.run(leaseUntil, delivery.id);
        return taken;
      })(),
    );
  }

  recordAttempt(
    delivery: Pick<WebhookDelivery, 'id' | 'endpoint_id'>,
    outcome: AttemptOutcome,
    sent: boolean,
  ): Promise<FailingSpell | undefined> {
    const { record, delivered, failed, spell } = this.statements;
    const endpointId = delivery.endpoint_id;
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction(() => {
        record.run({ ...outcome, id: delivery.id });
        if (!sent) return undefined;
        if (outcome.status === 'succeeded') delivered.run(endpointId);
        else failed.run(outcome.last_attempt_at, endpointId);
        return spell.get(endpointId) as FailingSpell | undefined;
      })(),
    );
  }

  listDeliveries(
    endpointId: string,
    page: { before?: string; limit: number },
  ): Promise<WebhookDelivery[]> {
    // Every id is `dlv_…`: '~' sorts after them all.
    const before = page.before ?? '~';
    return this.sqlite.attempt(
      () => this.statements.deliveries.all(endpointId, before, page.limit) as WebhookDelivery[],
    );
  }

  getDelivery(endpointId: string, id: string): Promise<WebhookDelivery | undefined> {
    return this.sqlite.attempt(
      () => this.statements.delivery.get(endpointId, id) as WebhookDelivery | undefined,
    );
  }

  retryDelivery(endpointId: string, id: string, now: string): Promise<WebhookDelivery | undefined> {
    const { retry, delivery } = this.statements;
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction(() => {
        if (retry.run(now, endpointId, id).changes === 0) return undefined;
        return delivery.get(endpointId, id) as WebhookDelivery;
      })(),
    );
  }

  pendingCount(): Promise<number> {
    return this.sqlite.attempt(() => this.statements.pending.get() as number);
  }

  purgeDeliveries(before: string): Promise<number> {
    return this.sqlite.attempt(() => this.statements.purge.run(before).changes);
  }

  /** The schema's migrations moved SQLite's outbox. */
  moveEarlierOutbox(): Promise<number> {
    return Promise.resolve(0);
  }

  markOnce(marker: string, now: string, expiresAt: string): Promise<boolean> {
    const { mark, pruneMarks } = this.statements;
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction(() => {
        pruneMarks.run(now);
        return mark.run(marker, expiresAt).changes > 0;
      })(),
    );
  }
}
