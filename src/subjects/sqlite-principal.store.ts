import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import {
  NewPrincipalRecord,
  PrincipalChanges,
  PrincipalPosition,
  PrincipalRecord,
  PrincipalStore,
  scopeUnion,
} from './principal.store';

/** Principals kept by `ensurePrincipal` before it starts over. */
const MAX_CACHED_PRINCIPALS = 10_000;
/** Idle principals deleted by one statement of the purge. */
const PURGE_SLICE = 1000;

const CHANGEABLE = ['plan', 'daily_limit', 'monthly_limit', 'rate_limit', 'enabled', 'external_id'];

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
  // The scopes its tokens have carried (space-separated; NULL: none recorded yet), and the index
  // of the purge of idle principals.
  `ALTER TABLE principals ADD COLUMN scopes TEXT;
   CREATE INDEX principals_last_seen ON principals (last_seen_at);`,
  // The customer or account it belongs to: the principals made before it have none (NULL).
  'ALTER TABLE principals ADD COLUMN external_id TEXT',
];

interface PrincipalRow extends Omit<PrincipalRecord, 'enabled' | 'scopes'> {
  enabled: number;
  scopes: string | null;
}

const toRecord = (row: PrincipalRow): PrincipalRecord => ({
  ...row,
  enabled: row.enabled !== 0,
  scopes: row.scopes === null ? null : row.scopes.split(' ').filter(Boolean),
});

const toRow = (record: PrincipalRecord): PrincipalRow => {
  const { revision: _revision, ...fields } = record;
  return {
    ...fields,
    enabled: record.enabled ? 1 : 0,
    scopes: record.scopes === null ? null : record.scopes.join(' '),
  };
};

/** Principals in the embedded store: the `principals` table. */
export class SqlitePrincipalStore extends PrincipalStore {
  private readonly stmt: Record<string, Database.Statement>;
  /** Records by id, as of `keptAsOf` (see `ensurePrincipal`). */
  private readonly cache = new Map<string, PrincipalRecord>();
  private cacheVersion = -1;

  constructor(private readonly sqlite: SqliteDatabase) {
    super();
    sqlite.ensureSchema('principals', MIGRATIONS);
    const { db } = sqlite;
    this.stmt = {
      insert: db.prepare(
        `INSERT INTO principals (id, issuer, subject, client_id, first_seen_at, last_seen_at,
           external_id)
         VALUES (@id, @issuer, @subject, @client_id, @first_seen_at, @last_seen_at, @external_id)
         ON CONFLICT (id) DO NOTHING`,
      ),
      put: db.prepare(
        `INSERT OR REPLACE INTO principals (id, issuer, subject, client_id, plan, token_plan,
           daily_limit, monthly_limit, rate_limit, enabled, scopes, first_seen_at, last_seen_at,
           external_id)
         VALUES (@id, @issuer, @subject, @client_id, @plan, @token_plan, @daily_limit,
           @monthly_limit, @rate_limit, @enabled, @scopes, @first_seen_at, @last_seen_at,
           @external_id)`,
      ),
      byId: db.prepare('SELECT * FROM principals WHERE id = ?'),
      count: db.prepare('SELECT COUNT(*) FROM principals').pluck(),
      list: db.prepare('SELECT * FROM principals ORDER BY first_seen_at, id LIMIT ?'),
      listAfter: db.prepare(
        `SELECT * FROM principals WHERE (first_seen_at, id) > (?, ?)
         ORDER BY first_seen_at, id LIMIT ?`,
      ),
      touch: db.prepare(
        'UPDATE principals SET last_seen_at = ?, client_id = ?, token_plan = ? WHERE id = ?',
      ),
      scopes: db.prepare('UPDATE principals SET scopes = ? WHERE id = ?'),
      delete: db.prepare('DELETE FROM principals WHERE id = ? RETURNING *'),
      purge: db
        .prepare(
          `DELETE FROM principals WHERE id IN (
           SELECT id FROM principals
           WHERE last_seen_at < ? AND enabled = 1 AND plan IS NULL AND daily_limit IS NULL
             AND monthly_limit IS NULL AND rate_limit IS NULL
           LIMIT ?)
         RETURNING id`,
        )
        .pluck(),
    };
  }

  /**
   * Every call with a token reads its principal: from memory while nothing has been committed
   * (SqliteDatabase.dataVersion, as the key lookup), the table otherwise; a first sight inserts,
   * the count checked in the same synchronous step.
   */
  ensurePrincipal(
    seen: NewPrincipalRecord,
    options: { max?: number } = {},
  ): Promise<PrincipalRecord | undefined> {
    return this.sqlite.attempt(() => {
      const version = this.sqlite.dataVersion();
      if (version !== this.cacheVersion) {
        this.cache.clear();
        this.cacheVersion = version;
      }
      const known = this.cache.get(seen.id);
      if (known) return known;
      let row = this.stmt.byId.get(seen.id) as PrincipalRow | undefined;
      if (!row) {
        if (options.max !== undefined && (this.stmt.count.get() as number) >= options.max) {
          return undefined;
        }
        this.stmt.insert.run({ external_id: null, ...seen });
        this.sqlite.written();
        row = this.stmt.byId.get(seen.id) as PrincipalRow;
      }
      const record = Object.freeze(toRecord(row));
      if (this.cache.size >= MAX_CACHED_PRINCIPALS) this.cache.clear();
      this.cache.set(seen.id, record);
      return record;
    });
  }

  findPrincipal(id: string): Promise<PrincipalRecord | undefined> {
    return this.sqlite.attempt(() => {
      const row = this.stmt.byId.get(id) as PrincipalRow | undefined;
      return row && toRecord(row);
    });
  }

  listPrincipals(
    page: { after?: PrincipalPosition; limit?: number } = {},
  ): Promise<PrincipalRecord[]> {
    const limit = page.limit ?? -1;
    return this.sqlite.attempt(() => {
      const rows = page.after
        ? this.stmt.listAfter.all(page.after.first_seen_at, page.after.id, limit)
        : this.stmt.list.all(limit);
      return (rows as PrincipalRow[]).map(toRecord);
    });
  }

  countPrincipals(): Promise<number> {
    return this.sqlite.attempt(() => this.stmt.count.get() as number);
  }

  updatePrincipal(id: string, changes: PrincipalChanges): Promise<PrincipalRecord | undefined> {
    const columns = Object.keys(changes).filter((c) => CHANGEABLE.includes(c));
    const params: Record<string, unknown> = { ...changes, id };
    if (changes.enabled !== undefined) params.enabled = changes.enabled ? 1 : 0;
    return this.sqlite.attempt(() => {
      if (columns.length) {
        const set = columns.map((c) => `${c} = @${c}`).join(', ');
        this.sqlite.db.prepare(`UPDATE principals SET ${set} WHERE id = @id`).run(params);
        this.sqlite.written();
      }
      const row = this.stmt.byId.get(id) as PrincipalRow | undefined;
      return row && toRecord(row);
    });
  }

  touchPrincipal(
    id: string,
    seen: { at: string; clientId: string | null; tokenPlan: string | null },
  ): Promise<void> {
    return this.sqlite.attempt(() => {
      this.stmt.touch.run(seen.at, seen.clientId, seen.tokenPlan, id);
    });
  }

  /** Read and written in one synchronous step: no other write comes between. */
  addPrincipalScopes(id: string, scopes: string[]): Promise<void> {
    return this.sqlite.attempt(() => {
      const row = this.stmt.byId.get(id) as PrincipalRow | undefined;
      if (!row) return;
      const recorded = toRecord(row).scopes ?? [];
      const union = scopeUnion(recorded, scopes) as string[];
      if (union.length === recorded.length) return;
      this.stmt.scopes.run(union.join(' '), id);
      this.sqlite.written();
    });
  }

  deletePrincipal(id: string): Promise<PrincipalRecord | undefined> {
    return this.sqlite.attempt(() => {
      const row = this.stmt.delete.get(id) as PrincipalRow | undefined;
      this.sqlite.written();
      return row && toRecord(row);
    });
  }

  putPrincipal(record: PrincipalRecord): Promise<void> {
    return this.sqlite.attempt(() => {
      this.stmt.put.run(toRow(record));
      this.sqlite.written();
    });
  }

  /** A slice of PURGE_SLICE at a time, each its own statement: the event loop free between. */
  async *purgeIdlePrincipals(seenBefore: string): AsyncIterable<string[]> {
    for (;;) {
      const ids = await this.sqlite.attempt(() => {
        const gone = this.stmt.purge.all(seenBefore, PURGE_SLICE) as string[];
        if (gone.length) this.sqlite.written();
        return gone;
      });
      if (ids.length) yield ids;
      if (ids.length < PURGE_SLICE) return;
    }
  }

  /** One process writes a SQLite file's principals: nothing to wait for. */
  exclusively<T>(_name: string, work: () => Promise<T>): Promise<T> {
    return work();
  }
}
