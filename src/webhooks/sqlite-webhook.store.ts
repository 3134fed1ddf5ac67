import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import {
  AttemptOutcome,
  DisabledReason,
  EndpointChanges,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookStore,
} from './webhook.store';

const MIGRATIONS = [
  `CREATE TABLE webhook_endpoints (
     id TEXT PRIMARY KEY,
     url TEXT NOT NULL,
     events TEXT NOT NULL,
     description TEXT,
     enabled INTEGER NOT NULL,
     disabled_reason TEXT,
     secrets TEXT NOT NULL,
     failing_since TEXT,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL
   );
   CREATE TABLE webhook_deliveries (
     id TEXT PRIMARY KEY,
     endpoint_id TEXT NOT NULL,
     event_id TEXT NOT NULL,
     type TEXT NOT NULL,
     payload TEXT NOT NULL,
     attempt INTEGER NOT NULL,
     status TEXT NOT NULL,
     response_status INTEGER,
     error TEXT,
     at TEXT NOT NULL,
     last_attempt_at TEXT,
     next_attempt_at TEXT,
     lease_until TEXT
   );
   CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
   CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id);
   CREATE TABLE webhook_marks (marker TEXT PRIMARY KEY, expires_at TEXT NOT NULL);`,
];

interface EndpointRow {
  id: string;
  url: string;
  events: string;
  description: string | null;
  enabled: number;
  disabled_reason: WebhookEndpoint['disabled_reason'];
  secrets: string;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

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

const DELIVERY_COLUMNS =
  'id, endpoint_id, event_id, type, payload, attempt, status, response_status, error, at, last_attempt_at, next_attempt_at';

/** A change's columns, by name: only these may be set (the names come from code, not clients). */
const CHANGEABLE = new Set([
  'url',
  'events',
  'description',
  'enabled',
  'disabled_reason',
  'secrets',
  'failing_since',
  'updated_at',
]);

/** Endpoints and the outbox in the embedded store: `webhook_endpoints`, `webhook_deliveries`. */
export class SqliteWebhookStore extends WebhookStore {
  private readonly statements: Record<string, Database.Statement>;

  constructor(private readonly sqlite: SqliteDatabase) {
    super();
    sqlite.ensureSchema('webhooks', MIGRATIONS);
    const { db } = sqlite;
    this.statements = {
      count: db.prepare('SELECT COUNT(*) FROM webhook_endpoints').pluck(),
      insertEndpoint: db.prepare(
        `INSERT INTO webhook_endpoints (id, url, events, description, enabled, disabled_reason,
           secrets, failing_since, created_at, updated_at)
         VALUES (@id, @url, @events, @description, @enabled, @disabled_reason, @secrets,
           @failing_since, @created_at, @updated_at)`,
      ),
      endpoint: db.prepare('SELECT * FROM webhook_endpoints WHERE id = ?'),
      endpoints: db.prepare('SELECT * FROM webhook_endpoints ORDER BY created_at, id'),
      disable: db.prepare(
        `UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?, updated_at = ?
         WHERE id = ? AND enabled = 1`,
      ),
      deleteEndpoint: db.prepare('DELETE FROM webhook_endpoints WHERE id = ?'),
      deleteDeliveriesOf: db.prepare('DELETE FROM webhook_deliveries WHERE endpoint_id = ?'),
      insertDelivery: db.prepare(
        `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS})
         VALUES (@id, @endpoint_id, @event_id, @type, @payload, @attempt, @status,
           @response_status, @error, @at, @last_attempt_at, @next_attempt_at)`,
      ),
      due: db.prepare(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= ?
           AND (lease_until IS NULL OR lease_until <= ?)
         ORDER BY next_attempt_at LIMIT ?`,
      ),
      lease: db.prepare('UPDATE webhook_deliveries SET lease_until = ? WHERE id = ?'),
      record: db.prepare(
        `UPDATE webhook_deliveries SET attempt = @attempt, status = @status,
           response_status = @response_status, error = @error,
           last_attempt_at = @last_attempt_at, next_attempt_at = @next_attempt_at,
           lease_until = NULL
         WHERE id = @id`,
      ),
      deliveries: db.prepare(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
         WHERE endpoint_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
      ),
      delivery: db.prepare(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = ? AND id = ?`,
      ),
      retry: db.prepare(
        `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, lease_until = NULL
         WHERE endpoint_id = ? AND id = ? AND status = 'failed'`,
      ),
      pending: db
        .prepare("SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending'")
        .pluck(),
      purge: db.prepare("DELETE FROM webhook_deliveries WHERE at < ? AND status != 'pending'"),
      mark: db.prepare('INSERT OR IGNORE INTO webhook_marks (marker, expires_at) VALUES (?, ?)'),
      pruneMarks: db.prepare('DELETE FROM webhook_marks WHERE expires_at <= ?'),
    };
  }

  createEndpoint(endpoint: WebhookEndpoint, max: number): Promise<boolean> {
    const { count, insertEndpoint } = this.statements;
    return this.sqlite.run(() =>
      this.sqlite.db.transaction(() => {
        if ((count.get() as number) >= max) return false;
        insertEndpoint.run(toRow(endpoint));
        return true;
      })(),
    );
  }

  getEndpoint(id: string): Promise<WebhookEndpoint | undefined> {
    return this.sqlite.run(() => {
      const row = this.statements.endpoint.get(id) as EndpointRow | undefined;
      return row && toEndpoint(row);
    });
  }

  listEndpoints(): Promise<WebhookEndpoint[]> {
    return this.sqlite.run(() =>
      (this.statements.endpoints.all() as EndpointRow[]).map(toEndpoint),
    );
  }

  updateEndpoint(id: string, changes: EndpointChanges): Promise<WebhookEndpoint | undefined> {
    const row = toRow(changes);
    const columns = Object.keys(row).filter((name) => CHANGEABLE.has(name));
    return this.sqlite.run(() =>
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
    return this.sqlite.run(() => this.statements.disable.run(reason, at, id).changes > 0);
  }

  deleteEndpoint(id: string): Promise<boolean> {
    const { deleteEndpoint, deleteDeliveriesOf } = this.statements;
    return this.sqlite.run(() =>
      this.sqlite.db.transaction(() => {
        deleteDeliveriesOf.run(id);
        return deleteEndpoint.run(id).changes > 0;
      })(),
    );
  }

  enqueue(deliveries: WebhookDelivery[]): Promise<void> {
    const { insertDelivery } = this.statements;
    return this.sqlite.run(() =>
      this.sqlite.db.transaction(() => {
        for (const delivery of deliveries) insertDelivery.run(delivery);
      })(),
    );
  }

  claimDue(now: string, leaseUntil: string, limit: number): Promise<WebhookDelivery[]> {
    const { due, lease } = this.statements;
    return this.sqlite.run(() =>
      this.sqlite.db.transaction(() => {
        const found = due.all(now, now, limit) as WebhookDelivery[];
        for (const delivery of found) lease.run(leaseUntil, delivery.id);
        return found;
      })(),
    );
  }

  recordAttempt(id: string, outcome: AttemptOutcome): Promise<void> {
    return this.sqlite.run(() => {
      this.statements.record.run({ ...outcome, id });
    });
  }

  listDeliveries(
    endpointId: string,
    page: { before?: string; limit: number },
  ): Promise<WebhookDelivery[]> {
    // Every id is `dlv_…`: '~' sorts after them all.
    const before = page.before ?? '~';
    return this.sqlite.run(
      () => this.statements.deliveries.all(endpointId, before, page.limit) as WebhookDelivery[],
    );
  }

  getDelivery(endpointId: string, id: string): Promise<WebhookDelivery | undefined> {
    return this.sqlite.run(
      () => this.statements.delivery.get(endpointId, id) as WebhookDelivery | undefined,
    );
  }

  retryDelivery(endpointId: string, id: string, now: string): Promise<WebhookDelivery | undefined> {
    const { retry, delivery } = this.statements;
    return this.sqlite.run(() =>
      this.sqlite.db.transaction(() => {
        if (retry.run(now, endpointId, id).changes === 0) return undefined;
        return delivery.get(endpointId, id) as WebhookDelivery;
      })(),
    );
  }

  pendingCount(): Promise<number> {
    return this.sqlite.run(() => this.statements.pending.get() as number);
  }

  purgeDeliveries(before: string): Promise<number> {
    return this.sqlite.run(() => this.statements.purge.run(before).changes);
  }

  markOnce(marker: string, now: string, expiresAt: string): Promise<boolean> {
    const { mark, pruneMarks } = this.statements;
    return this.sqlite.run(() =>
      this.sqlite.db.transaction(() => {
        pruneMarks.run(now);
        return mark.run(marker, expiresAt).changes > 0;
      })(),
    );
  }
}
