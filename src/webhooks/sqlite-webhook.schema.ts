/** The tables of webhook endpoints and their outbox, by migration. */
export const WEBHOOK_MIGRATIONS = [
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
  // Each endpoint's own outbox: its pending deliveries by when due (a claim takes some of each
  // endpoint in turn) and by age (the oldest fail past the backlog's cap), their number kept by
  // triggers on every change of a delivery's status; its failing spell and backlog counted.
  `ALTER TABLE webhook_endpoints ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE webhook_endpoints ADD COLUMN backlog_failed INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE webhook_endpoints ADD COLUMN backlog_failed_at TEXT;
   DROP INDEX webhook_deliveries_due;
   CREATE INDEX webhook_deliveries_due ON webhook_deliveries (endpoint_id, next_attempt_at)
     WHERE status = 'pending';
   CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, id)
     WHERE status = 'pending';
   CREATE TABLE webhook_pending (
     endpoint_id TEXT PRIMARY KEY,
     pending INTEGER NOT NULL
   ) WITHOUT ROWID;
   INSERT INTO webhook_pending (endpoint_id, pending)
     SELECT endpoint_id, COUNT(*) FROM webhook_deliveries WHERE status = 'pending'
     GROUP BY endpoint_id;
   CREATE TRIGGER webhook_pending_added AFTER INSERT ON webhook_deliveries
     WHEN NEW.status = 'pending'
   BEGIN
     INSERT INTO webhook_pending (endpoint_id, pending) VALUES (NEW.endpoint_id, 1)
       ON CONFLICT (endpoint_id) DO UPDATE SET pending = pending + 1;
   END;
   CREATE TRIGGER webhook_pending_changed AFTER UPDATE OF status ON webhook_deliveries
     WHEN (OLD.status = 'pending') != (NEW.status = 'pending')
   BEGIN
     INSERT INTO webhook_pending (endpoint_id, pending)
       VALUES (NEW.endpoint_id, CASE WHEN NEW.status = 'pending' THEN 1 ELSE 0 END)
       ON CONFLICT (endpoint_id) DO UPDATE
       SET pending = pending + CASE WHEN NEW.status = 'pending' THEN 1 ELSE -1 END;
   END;
   CREATE TRIGGER webhook_pending_removed AFTER DELETE ON webhook_deliveries
     WHEN OLD.status = 'pending'
   BEGIN
     UPDATE webhook_pending SET pending = pending - 1 WHERE endpoint_id = OLD.endpoint_id;
   END;`,
];

const DELIVERY_COLUMNS =
  'id, endpoint_id, event_id, type, payload, attempt, status, response_status, error, at, last_attempt_at, next_attempt_at';

/** The store's statements, by name (prepared once); those in PLUCKED answer their first column. */
export const WEBHOOK_STATEMENTS = {
  count: 'SELECT COUNT(*) FROM webhook_endpoints',
  insertEndpoint: `INSERT INTO webhook_endpoints (id, url, events, description, enabled, disabled_reason,
       secrets, failing_since, consecutive_failures, backlog_failed, backlog_failed_at,
       created_at, updated_at)
     VALUES (@id, @url, @events, @description, @enabled, @disabled_reason, @secrets,
       @failing_since, @consecutive_failures, @backlog_failed, @backlog_failed_at,
       @created_at, @updated_at)`,
  endpoint: 'SELECT * FROM webhook_endpoints WHERE id = ?',
  endpoints: 'SELECT * FROM webhook_endpoints ORDER BY created_at, id',
  disable: `UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?, updated_at = ?
     WHERE id = ? AND enabled = 1`,
  deleteEndpoint: 'DELETE FROM webhook_endpoints WHERE id = ?',
  deleteDeliveriesOf: 'DELETE FROM webhook_deliveries WHERE endpoint_id = ?',
  deletePendingOf: 'DELETE FROM webhook_pending WHERE endpoint_id = ?',
  // Of an endpoint that exists: a delivery stored as its endpoint is deleted is not kept.
  insertDelivery: `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS})
     SELECT @id, @endpoint_id, @event_id, @type, @payload, @attempt, @status,
       @response_status, @error, @at, @last_attempt_at, @next_attempt_at
     WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = @endpoint_id)`,
  pendingOf: 'SELECT pending FROM webhook_pending WHERE endpoint_id = ?',
  oldestPending: `SELECT id, type, endpoint_id FROM webhook_deliveries
     WHERE endpoint_id = ? AND status = 'pending' ORDER BY id LIMIT ?`,
  failUnsent: `UPDATE webhook_deliveries SET status = 'failed', error = ?, next_attempt_at = NULL,
       lease_until = NULL
     WHERE id = ?`,
  countBacklog: `UPDATE webhook_endpoints SET backlog_failed = backlog_failed + ?, backlog_failed_at = ?
     WHERE id = ?`,
  spells: 'SELECT id, consecutive_failures FROM webhook_endpoints ORDER BY created_at, id',
  dueOf: `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
     WHERE endpoint_id = ? AND status = 'pending' AND next_attempt_at <= ?
       AND (lease_until IS NULL OR lease_until <= ?)
     ORDER BY next_attempt_at LIMIT ?`,
  lease: 'UPDATE webhook_deliveries SET lease_until = ? WHERE id = ?',
  delivered: `UPDATE webhook_endpoints SET consecutive_failures = 0, failing_since = NULL
     WHERE id = ? AND (consecutive_failures > 0 OR failing_since IS NOT NULL)`,
  failed: `UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1,
       failing_since = COALESCE(failing_since, ?)
     WHERE id = ?`,
  spell: 'SELECT failing_since, consecutive_failures FROM webhook_endpoints WHERE id = ?',
  record: `UPDATE webhook_deliveries SET attempt = @attempt, status = @status,
       response_status = @response_status, error = @error,
       last_attempt_at = @last_attempt_at, next_attempt_at = @next_attempt_at,
       lease_until = NULL
     WHERE id = @id`,
  deliveries: `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
     WHERE endpoint_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
  delivery: `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = ? AND id = ?`,
  retry: `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, lease_until = NULL
     WHERE endpoint_id = ? AND id = ? AND status = 'failed'`,
  pending: 'SELECT COALESCE(SUM(pending), 0) FROM webhook_pending',
  purge: "DELETE FROM webhook_deliveries WHERE at < ? AND status != 'pending'",
  mark: 'INSERT OR IGNORE INTO webhook_marks (marker, expires_at) VALUES (?, ?)',
  pruneMarks: 'DELETE FROM webhook_marks WHERE expires_at <= ?',
} as const;

export const PLUCKED: ReadonlySet<keyof typeof WEBHOOK_STATEMENTS> = new Set([
  'count',
  'pendingOf',
  'pending',
]);
