import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import { CreateOutcome, SourceRecord, SourceStore, StoredSource } from './source.store';

const MIGRATIONS = [
  `CREATE TABLE sources (
     name TEXT PRIMARY KEY,
     fields TEXT NOT NULL,
     sealed TEXT,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     version INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE TABLE sources_revision (id INTEGER PRIMARY KEY CHECK (id = 1), revision INTEGER NOT NULL);
   INSERT INTO sources_revision (id, revision) VALUES (1, 0);`,
];

interface SourceRow extends Omit<StoredSource, 'fields'> {
  fields: string;
}

/** Sources made through the API in the embedded store: one table, and the revision beside it. */
export class SqliteSourceStore extends SourceStore {
  private readonly stmt: Record<string, Database.Statement>;
  private readonly bump: () => number;

  constructor(private readonly sqlite: SqliteDatabase) {
    super();
    sqlite.ensureSchema('sources', MIGRATIONS);
    const { db } = sqlite;
    this.stmt = {
      revision: db.prepare('SELECT revision FROM sources_revision WHERE id = 1').pluck(),
      bump: db.prepare('UPDATE sources_revision SET revision = revision + 1 WHERE id = 1'),
      count: db.prepare('SELECT COUNT(*) FROM sources').pluck(),
      exists: db.prepare('SELECT 1 FROM sources WHERE name = ?').pluck(),
      insert: db.prepare(
        `INSERT INTO sources (name, fields, sealed, created_at, updated_at, version)
         VALUES (@name, @fields, @sealed, @created_at, @updated_at, @version)`,
      ),
      update: db.prepare(
        `UPDATE sources SET fields = @fields, sealed = @sealed, updated_at = @updated_at,
         version = @version WHERE name = @name`,
      ),
      remove: db.prepare('DELETE FROM sources WHERE name = ?'),
      list: db.prepare('SELECT * FROM sources ORDER BY name'),
    };
    this.bump = () => {
      this.stmt.bump.run();
      return this.stmt.revision.get() as number;
    };
  }

  create(record: SourceRecord, max: number): Promise<CreateOutcome> {
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction((): CreateOutcome => {
        if (this.stmt.exists.get(record.name)) return 'taken';
        if ((this.stmt.count.get() as number) >= max) return 'full';
        const version = this.bump();
        this.stmt.insert.run({ ...row(record), version });
        return version;
      })(),
    );
  }

  update(record: SourceRecord): Promise<number | undefined> {
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction(() => {
        if (!this.stmt.exists.get(record.name)) return undefined;
        const version = this.bump();
        this.stmt.update.run({ ...row(record), version });
        return version;
      })(),
    );
  }

  remove(name: string): Promise<boolean> {
    return this.sqlite.attempt(() =>
      this.sqlite.db.transaction(() => {
        if (this.stmt.remove.run(name).changes === 0) return false;
        this.bump();
        return true;
      })(),
    );
  }

  list(): Promise<StoredSource[]> {
    return this.sqlite.attempt(() =>
      (this.stmt.list.all() as SourceRow[]).map((found) => ({
        ...found,
        fields: JSON.parse(found.fields) as Record<string, unknown>,
      })),
    );
  }

  revision(): Promise<number> {
    return this.sqlite.attempt(() => this.stmt.revision.get() as number);
  }
}

function row(record: SourceRecord) {
  const { name, sealed, created_at, updated_at } = record;
  return { name, fields: JSON.stringify(record.fields), sealed, created_at, updated_at };
}
