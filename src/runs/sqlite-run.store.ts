import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import { RunChanges, RunEndReason, RunFilter, RunLease, RunRecord, RunStore } from './run.store';

const MIGRATIONS = [
  `CREATE TABLE runs (
     id TEXT PRIMARY KEY,
     token_hash TEXT NOT NULL UNIQUE,
     parent_kind TEXT NOT NULL,
     parent_id TEXT NOT NULL,
     budget INTEGER NOT NULL,
     scopes TEXT NOT NULL,
     label TEXT,
     metadata TEXT NOT NULL,
     created_at TEXT NOT NULL,
     expires_at TEXT NOT NULL,
     ended_at TEXT,
     ended_reason TEXT
   ) WITHOUT ROWID;
   CREATE INDEX runs_by_parent ON runs (parent_id, id);
   CREATE INDEX runs_by_end ON runs (COALESCE(ended_at, expires_at));`,
];

interface RunRow extends Omit<RunRecord, 'parent' | 'scopes' | 'metadata'> {
  parent_kind: RunRecord['parent']['kind'];
  parent_id: string;
  scopes: string;
  metadata: string;
}

const toRun = ({ parent_kind, parent_id, scopes, metadata, ...row }: RunRow): RunRecord => ({
  ...row,
  parent: { kind: parent_kind, id: parent_id },
  scopes: JSON.parse(scopes) as string[],
  metadata: JSON.parse(metadata) as Record<string, string>,
});

/** Runs a process keeps between calls, at most (see `findByHash`). */
const KEPT_RUNS = 10_000;

/** What a status filter adds to a list's WHERE (with `@now`). */
const STATUS_WHERE = {
  active: 'ended_at IS NULL AND expires_at > @now',
  expired: "(ended_reason = 'expired' OR (ended_at IS NULL AND expires_at <= @now))",
  ended: "ended_at IS NOT NULL AND ended_reason <> 'expired'",
};

/** Runs in the embedded store: one table, by id (so by time), by parent and by end. */
export class SqliteRunStore extends RunStore {
  private readonly stmt: Record<string, Database.Statement>;
  private readonly lists = new Map<string, Database.Statement>();
  /** Runs found by their token's hash, as of `runsAsOf` (see `findByHash`). */
  private readonly runsByHash = new Map<string, RunRecord>();
  private runsAsOf = -1;

  constructor(private readonly sqlite: SqliteDatabase) {
    super();
    sqlite.ensureSchema('runs', MIGRATIONS);
    const { db } = sqlite;
    this.stmt = {
      active: db
        .prepare(
          'SELECT COUNT(*) FROM runs WHERE parent_id = ? AND ended_at IS NULL AND expires_at > ?',
        )
        .pluck(),
      insert: db.prepare(
        `INSERT INTO runs (id, token_hash, parent_kind, parent_id, budget, scopes, label, metadata,
           created_at, expires_at, ended_at, ended_reason)
         VALUES (@id, @token_hash, @parent_kind, @parent_id, @budget, @scopes, @label, @metadata,
           @created_at, @expires_at, NULL, NULL)`,
      ),
      byHash: db.prepare('SELECT * FROM runs WHERE token_hash = ?'),
      byId: db.prepare('SELECT * FROM runs WHERE id = ?'),
      extend: db.prepare(
        `UPDATE runs SET expires_at = @expires_at, scopes = @scopes
         WHERE id = @id AND ended_at IS NULL AND expires_at > @now`,
      ),
      end: db.prepare(
        'UPDATE runs SET ended_at = ?, ended_reason = ? WHERE id = ? AND ended_at IS NULL',
      ),
      ended: db.prepare(
        'SELECT * FROM runs WHERE COALESCE(ended_at, expires_at) < ? ORDER BY id LIMIT ?',
      ),
      delete: db.prepare('DELETE FROM runs WHERE id = ?'),
    };
  }

  insert(run: RunRecord, maxActive: number): Promise<boolean> {
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction(() => {
        const active = this.stmt.active.get(run.parent.id, run.created_at) as number;
        if (active >= maxActive) return false;
        this.stmt.insert.run({
          ...run,
          parent_kind: run.parent.kind,
          parent_id: run.parent.id,
          scopes: JSON.stringify(run.scopes),
          metadata: JSON.stringify(run.metadata),
        });
        this.sqlite.written();
        return true;
      })(),
    );
  }

  /**
   * Every call of a run's token reads it: answered from memory while no other connection has
   * committed (SqliteDatabase.dataVersion), as a key's lookup is, so a run ended anywhere is read by
   * the next call. Frozen: the same record while it holds.
   */
  findByHash(hash: string): Promise<RunRecord | undefined> {
    return this.sqlite.attempt(() => {
      const version = this.sqlite.dataVersion();
      if (version !== this.runsAsOf) {
        this.runsByHash.clear();
        this.runsAsOf = version;
      }
      const known = this.runsByHash.get(hash);
      if (known) return known;
      const run = this.read(this.stmt.byHash, hash);
      if (!run) return undefined;
      if (this.runsByHash.size >= KEPT_RUNS) this.runsByHash.clear();
      this.runsByHash.set(hash, Object.freeze(run));
      return run;
    });
  }

  find(id: string): Promise<RunRecord | undefined> {
    return this.sqlite.attempt(() => this.read(this.stmt.byId, id));
  }

  private read(statement: Database.Statement, value: string): RunRecord | undefined {
    const row = statement.get(value) as RunRow | undefined;
    return row && toRun(row);
  }

  list(filter: RunFilter): Promise<RunRecord[]> {
    const where = ['1 = 1'];
    if (filter.parentId !== undefined) where.push('parent_id = @parentId');
    if (filter.status !== undefined) where.push(STATUS_WHERE[filter.status]);
    if (filter.before !== undefined) where.push('id < @before');
    const sql = `SELECT * FROM runs WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT @limit`;
    let statement = this.lists.get(sql);
    if (!statement) this.lists.set(sql, (statement = this.sqlite.db.prepare(sql)));
    const prepared = statement;
    return this.sqlite.attempt(() => (prepared.all(filter) as RunRow[]).map(toRun));
  }

  update(id: string, changes: RunChanges): Promise<RunRecord | undefined> {
    const columns = Object.keys(changes).filter((name) => name === 'budget' || name === 'label');
    return this.sqlite.attempt(() => {
      if (columns.length) {
        const set = columns.map((name) => `${name} = @${name}`).join(', ');
        this.sqlite.db.prepare(`UPDATE runs SET ${set} WHERE id = @id`).run({ ...changes, id });
        this.sqlite.written();
      }
      return this.read(this.stmt.byId, id);
    });
  }

  extend(id: string, lease: RunLease, now: string): Promise<RunRecord | undefined> {
    const change = { id, now, expires_at: lease.expires_at, scopes: JSON.stringify(lease.scopes) };
    return this.sqlite.attempt(() => {
      if (!this.stmt.extend.run(change).changes) return undefined;
      this.sqlite.written();
      return this.read(this.stmt.byId, id);
    });
  }

  end(id: string, reason: RunEndReason, at: string): Promise<RunRecord | undefined> {
    return this.sqlite.attempt(() => {
      if (!this.stmt.end.run(at, reason, id).changes) return undefined;
      this.sqlite.written();
      return this.read(this.stmt.byId, id);
    });
  }

  purge(before: string, limit: number): Promise<RunRecord[]> {
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction(() => {
        const runs = (this.stmt.ended.all(before, limit) as RunRow[]).map(toRun);
        for (const run of runs) this.stmt.delete.run(run.id);
        if (runs.length) this.sqlite.written();
        return runs;
      })(),
    );
  }
}
