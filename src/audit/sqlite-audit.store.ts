import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import { AuditEntry, AuditStore } from './audit.store';

interface AuditRow extends Omit<AuditEntry, 'details'> {
  details: string;
}

const toAuditEntry = (row: AuditRow): AuditEntry => ({
  ...row,
  details: JSON.parse(row.details) as Record<string, unknown>,
});

/** Added with OAuth: the principal that acted, beside the key. */
const MIGRATIONS = ['ALTER TABLE audit_log ADD COLUMN actor_principal_id TEXT'];

/** The audit trail in the embedded store: the `audit_log` table. */
export class SqliteAuditStore extends AuditStore {
  private readonly append: Database.Statement;
  private readonly prune: Database.Statement;
  private readonly list: Database.Statement;

  constructor(private readonly sqlite: SqliteDatabase) {
    super();
    sqlite.ensureSchema('audit', MIGRATIONS);
    const { db } = sqlite;
    this.append = db
      .prepare(
        `INSERT INTO audit_log (at, actor_key_id, actor_principal_id, action, target, request_id,
           details)
         VALUES (@at, @actor_key_id, @actor_principal_id, @action, @target, @request_id, @details)
         RETURNING id`,
      )
      .pluck();
    this.prune = db.prepare('DELETE FROM audit_log WHERE at < ?');
    this.list = db.prepare(
      'SELECT * FROM audit_log WHERE id < ? AND at >= ? ORDER BY id DESC LIMIT ?',
    );
  }

  appendAudit(entry: Omit<AuditEntry, 'id'>, keepSince: string): Promise<AuditEntry> {
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction(() => {
        this.prune.run(keepSince);
        const id = this.append.get({ ...entry, details: JSON.stringify(entry.details) }) as number;
        return { id, ...entry };
      })(),
    );
  }

  listAudit(query: { before?: number; limit: number; since: string }): Promise<AuditEntry[]> {
    const before = query.before ?? Number.MAX_SAFE_INTEGER;
    return this.sqlite.attempt(() =>
      (this.list.all(before, query.since, query.limit) as AuditRow[]).map(toAuditEntry),
    );
  }
}
