import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import {
  ApiKeyRecord,
  KeyChanges,
  KeyPosition,
  KeyRotation,
  KeyStore,
  NewKeyRecord,
} from './key.store';

/** Keys kept by `findKeyByHash` before it starts over. */
const MAX_CACHED_KEYS = 10_000;

const CHANGEABLE = [
  'name',
  'scopes',
  'plan',
  'daily_limit',
  'monthly_limit',
  'rate_limit',
  'enabled',
  'external_id',
];

/** Columns added after the first schema (sqlite.database.ts), each migration run once. */
const MIGRATIONS = [
  'ALTER TABLE api_keys ADD COLUMN monthly_limit INTEGER',
  // The customer or account a key belongs to: the keys made before it have none (NULL).
  'ALTER TABLE api_keys ADD COLUMN external_id TEXT',
];

interface KeyRow extends Omit<ApiKeyRecord, 'scopes' | 'enabled'> {
  scopes: string;
  enabled: number;
}

const toRecord = (row: KeyRow): ApiKeyRecord => ({
  ...row,
  scopes: JSON.parse(row.scopes) as string[],
  enabled: row.enabled !== 0,
});

function keyParams(key: NewKeyRecord) {
  return {
    previous_hash: null,
    previous_key_expires_at: null,
    monthly_limit: null,
    external_id: null,
    ...key,
    scopes: JSON.stringify(key.scopes),
    enabled: key.enabled === false ? 0 : 1,
  };
}

/** Keys in the embedded store: the `api_keys` table. */
export class SqliteKeyStore extends KeyStore {
  private readonly stmt: Record<string, Database.Statement>;
  /** Keys found by hash, and by id, as of `keysAsOf` (see `findKeyByHash`). */
  private readonly keysByHash = new Map<string, ApiKeyRecord>();
  private readonly keysById = new Map<string, ApiKeyRecord>();
  private keysAsOf = -1;

  constructor(private readonly sqlite: SqliteDatabase) {
    super();
    sqlite.ensureSchema('keys', MIGRATIONS);
    const { db } = sqlite;
    this.stmt = {
      insertKey: db.prepare(
        `INSERT INTO api_keys (id, name, prefix, hash, scopes, plan, daily_limit, monthly_limit,
           rate_limit, created_at, expires_at, revoked_at, last_used_at, enabled, previous_hash,
           previous_key_expires_at, external_id)
         VALUES (@id, @name, @prefix, @hash, @scopes, @plan, @daily_limit, @monthly_limit,
           @rate_limit, @created_at, @expires_at, @revoked_at, @last_used_at, @enabled,
           @previous_hash, @previous_key_expires_at, @external_id)`,
      ),
      countKeys: db.prepare('SELECT COUNT(*) AS n FROM api_keys').pluck(),
      byHash: db.prepare('SELECT * FROM api_keys WHERE hash = @hash OR previous_hash = @hash'),
      byId: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
      list: db.prepare('SELECT * FROM api_keys ORDER BY created_at, id LIMIT ?'),
      listAfter: db.prepare(
        'SELECT * FROM api_keys WHERE (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ?',
      ),
      rotate: db.prepare(
        `UPDATE api_keys SET hash = @hash, prefix = @prefix, previous_hash = @previous_hash,
           previous_key_expires_at = @previous_key_expires_at WHERE id = @id`,
      ),
      revoke: db.prepare('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?'),
      // On the counters' connection, in their group commit: a key's first call in a minute costs
      // no sync of its own, and leaves the copies kept of every key valid (see `touchKey`).
      touch: sqlite.counters.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?'),
    };
  }

  insertKey(key: NewKeyRecord): Promise<void> {
    return this.sqlite.attempt(() => {
      this.stmt.insertKey.run(keyParams(key));
    });
  }

  insertKeyIfNone(key: NewKeyRecord): Promise<boolean> {
    return this.sqlite.attempt(() =>
      this.sqlite.db
        .transaction(() => {
          if ((this.stmt.countKeys.get() as number) > 0) return false;
          this.stmt.insertKey.run(keyParams(key));
          return true;
        })
        .immediate(),
    );
  }

  /**
   * Every authenticated call's lookup, answered from memory while no connection but the counters'
   * own has committed anything (SqliteDatabase.dataVersion): a change made anywhere, this store's
   * key writes and other processes (the CLI, other instances) alike, is read by the next call, as
   * before; only the lookup's statement is saved (docs/performance.md, "Why the hot path is written as it is").
   */
  findKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return this.sqlite.attempt(() =>
      this.kept(this.keysByHash, hash, () => this.stmt.byHash.get({ hash })),
    );
  }

  /** As `findKeyByHash`, by id: what a run's call reads of its parent key on every call. */
  findKeyById(id: string): Promise<ApiKeyRecord | undefined> {
    return this.sqlite.attempt(() => this.kept(this.keysById, id, () => this.stmt.byId.get(id)));
  }

  /** A key found through `kept`, or read (`read`), frozen, and kept while `keysAsOf` holds. */
  private kept(
    kept: Map<string, ApiKeyRecord>,
    at: string,
    read: () => unknown,
  ): ApiKeyRecord | undefined {
    const version = this.sqlite.dataVersion();
    if (version !== this.keysAsOf) {
      this.keysByHash.clear();
      this.keysById.clear();
      this.keysAsOf = version;
    }
    const known = kept.get(at);
    if (known) return known;
    const row = read() as KeyRow | undefined;
    if (!row) return undefined;
    const record = toRecord(row);
    Object.freeze(record.scopes);
    return this.keep(Object.freeze(record));
  }

  /**
   * Keeps a record by id and by its secrets' hashes. Only keys found are kept, so unknown tokens
   * cannot grow it: one entry per live key and secret.
   */
  private keep(record: ApiKeyRecord): ApiKeyRecord {
    if (this.keysById.size >= MAX_CACHED_KEYS) {
      this.keysById.clear();
      this.keysByHash.clear();
    }
    this.keysById.set(record.id, record);
    this.keysByHash.set(record.hash, record);
    if (record.previous_hash) this.keysByHash.set(record.previous_hash, record);
    return record;
  }

  listKeys(page: { after?: KeyPosition; limit?: number } = {}): Promise<ApiKeyRecord[]> {
    const limit = page.limit ?? -1;
    return this.sqlite.attempt(() => {
      const rows = page.after
        ? this.stmt.listAfter.all(page.after.created_at, page.after.id, limit)
        : this.stmt.list.all(limit);
      return (rows as KeyRow[]).map(toRecord);
    });
  }

  updateKey(id: string, changes: KeyChanges): Promise<ApiKeyRecord | undefined> {
    const columns = Object.keys(changes).filter((c) => CHANGEABLE.includes(c));
    const params: Record<string, unknown> = { ...changes, id };
    if (changes.scopes) params.scopes = JSON.stringify(changes.scopes);
    if (changes.enabled !== undefined) params.enabled = changes.enabled ? 1 : 0;
    return this.sqlite.attempt(() => {
      if (columns.length) {
        const set = columns.map((c) => `${c} = @${c}`).join(', ');
        this.sqlite.db.prepare(`UPDATE api_keys SET ${set} WHERE id = @id`).run(params);
        this.sqlite.written();
      }
      const row = this.stmt.byId.get(id) as KeyRow | undefined;
      return row && toRecord(row);
    });
  }

  rotateKey(id: string, rotation: KeyRotation): Promise<ApiKeyRecord | undefined> {
    return this.sqlite.attempt(() => {
      this.stmt.rotate.run({ ...rotation, id });
      this.sqlite.written();
      const row = this.stmt.byId.get(id) as KeyRow | undefined;
      return row && toRecord(row);
    });
  }

  revokeKey(id: string, at: string): Promise<boolean> {
    return this.sqlite.attempt(() => {
      const { changes } = this.stmt.revoke.run(at, id);
      this.sqlite.written();
      return changes > 0;
    });
  }

  /**
   * Written in the counters' next group commit, which does not change their `data_version`: the
   * copy kept of this key is replaced by one with the new time, those of the others stay.
   */
  async touchKey(id: string, at: string): Promise<void> {
    await this.sqlite.groupCommit(() => this.stmt.touch.run(at, id));
    const known = this.keysById.get(id);
    if (known) this.keep(Object.freeze({ ...known, last_used_at: at }));
  }
}
