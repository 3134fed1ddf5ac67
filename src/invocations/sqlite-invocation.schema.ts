/** The tables of long-running calls (`invocations`) and of the instances running them, by migration. */
export const INVOCATION_MIGRATIONS = [
  // A rowid table: a finished call's result may be up to 1 MB, which WITHOUT ROWID stores badly.
  `CREATE TABLE invocations (
     id TEXT NOT NULL UNIQUE,
     caller_id TEXT NOT NULL,
     tool TEXT NOT NULL,
     status TEXT NOT NULL,
     progress TEXT,
     result TEXT,
     error TEXT,
     error_kind TEXT,
     created_at TEXT NOT NULL,
     started_at TEXT,
     finished_at TEXT,
     instance TEXT NOT NULL,
     cancel_requested INTEGER NOT NULL DEFAULT 0,
     expires_ms INTEGER
   );
   CREATE INDEX invocations_by_caller ON invocations (caller_id, created_at, id);
   CREATE INDEX invocations_active ON invocations (instance) WHERE status IN ('queued', 'running');
   CREATE INDEX invocations_expiry ON invocations (expires_ms) WHERE expires_ms IS NOT NULL;
   CREATE TABLE invocation_instances (
     id TEXT PRIMARY KEY,
     alive_until INTEGER NOT NULL
   ) WITHOUT ROWID;`,
  // What a call was charged, and its Idempotency-Key: what a refund needs.
  `ALTER TABLE invocations ADD COLUMN charged_day TEXT;
   ALTER TABLE invocations ADD COLUMN charged_credits INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE invocations ADD COLUMN idempotency_key TEXT;`,
  // The ledger entry of its charge (JSON), which its refund gives back.
  `ALTER TABLE invocations ADD COLUMN charge_entry TEXT;`,
  // The operator's list of every caller's calls, newest first: a page seeks from its cursor
  // instead of sorting the table.
  `CREATE INDEX invocations_order ON invocations (created_at, id);`,
];
