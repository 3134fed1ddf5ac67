/**
 * The schema of the database as the first concerns made it, in the order it grew (`user_version`
 * counts how many ran). A concern added later keeps its own list (ensureSchema), so that adding
 * one is a file of its own, not an edit of this one.
 */
export const MIGRATIONS: string[] = [
  `CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     prefix TEXT NOT NULL,
     hash TEXT NOT NULL UNIQUE,
     scopes TEXT NOT NULL,
     plan TEXT NOT NULL,
     daily_limit INTEGER,
     rate_limit INTEGER,
     created_at TEXT NOT NULL,
     expires_at TEXT,
     revoked_at TEXT,
     last_used_at TEXT
   );
   CREATE TABLE config_overrides (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL);
   CREATE TABLE usage_counters (
     key_id TEXT NOT NULL,
     day TEXT NOT NULL,
     count INTEGER NOT NULL,
     PRIMARY KEY (key_id, day)
   ) WITHOUT ROWID;`,
  `ALTER TABLE api_keys ADD COLUMN enabled INTEGER NOT NULL DEFAULT 1;
   ALTER TABLE api_keys ADD COLUMN previous_hash TEXT;
   ALTER TABLE api_keys ADD COLUMN previous_key_expires_at TEXT;
   CREATE UNIQUE INDEX api_keys_previous_hash ON api_keys (previous_hash);
   CREATE INDEX api_keys_order ON api_keys (created_at, id);
   CREATE TABLE audit_log (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     at TEXT NOT NULL,
     actor_key_id TEXT,
     action TEXT NOT NULL,
     target TEXT NOT NULL,
     request_id TEXT,
     details TEXT NOT NULL
   );
   CREATE INDEX audit_log_at ON audit_log (at);
   CREATE TABLE idempotency (
     key_id TEXT NOT NULL,
     scope TEXT NOT NULL,
     fingerprint TEXT NOT NULL,
     token TEXT NOT NULL,
     status INTEGER,
     body TEXT,
     expires_ms INTEGER NOT NULL,
     PRIMARY KEY (key_id, scope)
   ) WITHOUT ROWID;
   CREATE INDEX idempotency_expiry ON idempotency (key_id, expires_ms);`,
  // Kept answers are bounded per key in bytes as well as entries: each entry's size, and a key's
  // totals kept beside (read in O(1) by every idempotent call); an index for the purge of every
  // key's expired entries. 128: IDEMPOTENCY_ENTRY_OVERHEAD at the time of this migration.
  `ALTER TABLE idempotency ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
   UPDATE idempotency SET bytes =
     LENGTH(CAST(COALESCE(body, '') AS BLOB)) + LENGTH(CAST(scope AS BLOB)) + 128;
   CREATE TABLE idempotency_totals (
     key_id TEXT PRIMARY KEY,
     entries INTEGER NOT NULL,
     bytes INTEGER NOT NULL
   ) WITHOUT ROWID;
   INSERT INTO idempotency_totals (key_id, entries, bytes)
     SELECT key_id, COUNT(*), SUM(bytes) FROM idempotency GROUP BY key_id;
   CREATE INDEX idempotency_expires ON idempotency (expires_ms);`,
];
