import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../sqlite/sqlite.database';
import {
  NewPrincipalRecord,
  PrincipalChanges,
  PrincipalPosition,
  PrincipalRecord,
  PrincipalStore,
} from './principal.store';

/** Principals kept by `ensurePrincipal` before it starts over. */
const MAX_CACHED_PRINCIPALS = 10_000;

const CHANGEABLE = ['plan', 'daily_limit', 'monthly_limit', 'rate_limit', 'enabled'];

const MIGRATIONS = [
  `CREATE TABLE principals (
     id TEXT PRIMARY KEY,
     issuer TEXT NOT NULL,
     subject TEXT NOT NULL,
     client_id TEXT,
     plan TEXT,
     token_plan TEXT,
     daily_limit INTEGER,
     rate_limit INTEGER,
     enabled INTEGER NOT NULL DEFAULT 1,
     first_seen_at TEXT NOT NULL,
     last_seen_at TEXT NOT NULL
   ) WITHOUT ROWID;
   CREATE INDEX principals_order ON principals (first_seen_at, id);`,
  'ALTER TABLE principals ADD COLUMN monthly_limit INTEGER',
];

interface PrincipalRow extends Omit<PrincipalRecord, 'enabled'> {
  enabled: number;
}

const toRecord = (row: PrincipalRow): PrincipalRecord => ({ ...row, enabled: row.enabled !== 0 });

/** Principals in the embedded store: the `principals` table. */
export class SqlitePrincipalStore extends PrincipalStore {
  private readonly stmt: Record<string, Database.Statement>;
  /** Records by id, as of `keptAsOf` (see `ensurePrincipal`). */
  private readonly kept = new Map<string, PrincipalRecord>();
  private keptAsOf = -1;

  constructor(private readonly sqlite: SqliteDatabase) {
    super();
    sqlite.ensureSchema('principals', MIGRATIONS);
    const { db } = sqlite;
    this.stmt = {
      insert: db.prepare(
        `INSERT INTO principals (id, issuer, subject, client_id, first_seen_at, last_seen_at)
         VALUES (@id, @issuer, @subject, @client_id, @first_seen_at, @last_seen_at)
         ON CONFLICT (id) DO NOTHING`,
      ),
      byId: db.prepare('SELECT * FROM principals WHERE id = ?'),
      list: db.prepare('SELECT * FROM principals ORDER BY first_seen_at, id LIMIT ?'),
      listAfter: db.prepare(
        `SELECT * FROM principals WHERE (first_seen_at, id) > (?, ?)
         ORDER BY first_seen_at, id LIMIT ?`,
      ),
      touch: db.prepare('UPDATE principals SET last_seen_at = ?, token_plan = ? WHERE id = ?'),
    };
  }

  /**
   * Every call with a token reads its principal: from memory while nothing has been committed
   * (SqliteDatabase.dataVersion, as the key lookup), the table otherwise; a first sight inserts.
   */
  ensurePrincipal(seen: NewPrincipalRecord): Promise<PrincipalRecord> {
    return this.sqlite.run(() => {
      const version = this.sqlite.dataVersion();
      if (version !== this.keptAsOf) {
        this.kept.clear();
        this.keptAsOf = version;
      }
      const known = this.kept.get(seen.id);
      if (known) return known;
      let row = this.stmt.byId.get(seen.id) as PrincipalRow | undefined;
      if (!row) {
        this.stmt.insert.run(seen);
        this.sqlite.written();
        row = this.stmt.byId.get(seen.id) as PrincipalRow;
      }
      const record = Object.freeze(toRecord(row));
      if (this.kept.size >= MAX_CACHED_PRINCIPALS) this.kept.clear();
      this.kept.set(seen.id, record);
      return record;
    });
  }

  findPrincipal(id: string): Promise<PrincipalRecord | undefined> {
    return this.sqlite.run(() => {
      const row = this.stmt.byId.get(id) as PrincipalRow | undefined;
      return row && toRecord(row);
    });
  }

  listPrincipals(
    page: { after?: PrincipalPosition; limit?: number } = {},
  ): Promise<PrincipalRecord[]> {
    const limit = page.limit ?? -1;
    return this.sqlite.run(() => {
      const rows = page.after
        ? this.stmt.listAfter.all(page.after.first_seen_at, page.after.id, limit)
        : this.stmt.list.all(limit);
      return (rows as PrincipalRow[]).map(toRecord);
    });
  }

  updatePrincipal(id: string, changes: PrincipalChanges): Promise<PrincipalRecord | undefined> {
    const columns = Object.keys(changes).filter((c) => CHANGEABLE.includes(c));
    const params: Record<string, unknown> = { ...changes, id };
    if (changes.enabled !== undefined) params.enabled = changes.enabled ? 1 : 0;
    return this.sqlite.run(() => {
      if (columns.length) {
        const set = columns.map((c) => `${c} = @${c}`).join(', ');
        this.sqlite.db.prepare(`UPDATE principals SET ${set} WHERE id = @id`).run(params);
        this.sqlite.written();
      }
      const row = this.stmt.byId.get(id) as PrincipalRow | undefined;
      return row && toRecord(row);
    });
  }

  touchPrincipal(id: string, at: string, tokenPlan: string | null): Promise<void> {
    return this.sqlite.run(() => {
      this.stmt.touch.run(at, tokenPlan, id);
    });
  }
}
