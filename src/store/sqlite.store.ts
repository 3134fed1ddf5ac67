import Database from 'better-sqlite3';
import { FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { privateDir, privateFile, privateIfPresent } from '../common/private-files';
import {
  ApiKeyRecord,
  AuditEntry,
  IdempotencyBegin,
  IdempotencyCaps,
  IdempotencyClaim,
  KeyChanges,
  KeyPosition,
  KeyRotation,
  NewKeyRecord,
  QuotaResult,
  Store,
  StoreUnavailableError,
} from './store';

const MIGRATIONS: string[] = [
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

/** Expired idempotency entries forgotten in one transaction of the purge (see purgeIdempotent). */
const PURGE_SLICE = 1000;

/** Usage counters are kept this many days (the usage history reaches back as far). */
export const USAGE_KEEP_DAYS = 90;

/** The UTC day `days` before `day` (both `YYYY-MM-DD`). */
export function dayBefore(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

/** Keys kept by `findKeyByHash` before it starts over. */
const MAX_CACHED_KEYS = 10_000;

/** Commits of counts after which the WAL is synced and checkpointed, off the request (see `afterCommit`). */
const CHECKPOINT_EVERY = 1000;
/** Commits of counts after which the checkpoint runs at once if the one off the request has not yet. */
export const CHECKPOINT_AT_THE_LATEST = 2 * CHECKPOINT_EVERY;

/** A quota count waiting for the next group commit (see `consumeQuota`). */
interface PendingCount {
  keyId: string;
  day: string;
  limit: number | null;
  resolve: (result: QuotaResult) => void;
  reject: (error: Error) => void;
}

interface KeyRow extends Omit<ApiKeyRecord, 'scopes' | 'enabled'> {
  scopes: string;
  enabled: number;
}

const toRecord = (row: KeyRow): ApiKeyRecord => ({
  ...row,
  scopes: JSON.parse(row.scopes) as string[],
  enabled: row.enabled !== 0,
});

/** What a failed statement is to callers: a store that is away (503), or the error itself. */
function storeFailure(error: unknown): Error {
  if (
    error instanceof Database.SqliteError &&
    /^SQLITE_(CANTOPEN|IOERR|CORRUPT|NOTADB|READONLY|BUSY|FULL)/.test(error.code)
  ) {
    return new StoreUnavailableError(`SQLite store failed: ${error.code}`, { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}

interface AuditRow extends Omit<AuditEntry, 'details'> {
  details: string;
}

const sumOf = (rows: { bytes: number }[]): number => rows.reduce((sum, row) => sum + row.bytes, 0);

const toAuditEntry = (row: AuditRow): AuditEntry => ({
  ...row,
  details: JSON.parse(row.details) as Record<string, unknown>,
});

interface IdempotencyRow {
  fingerprint: string;
  token: string;
  status: number | null;
  body: string | null;
}

/** The embedded store: one SQLite file in DATA_DIR, WAL mode, every write durable before it returns. */
export class SqliteStore extends Store {
  readonly kind = 'sqlite' as const;
  readonly file: string;
  private readonly db: Database.Database;
  /** The quota counters' own connection: see the constructor. */
  private readonly counters: Database.Database;
  private readonly stmt;
  private readonly counterStmt;
  private readonly countAll: Database.Transaction<(batch: PendingCount[]) => QuotaResult[]>;
  private commitsSinceCheckpoint = 0;
  /** Counts asked for since the last group commit (see `consumeQuota`). */
  private pendingCounts: PendingCount[] = [];
  /** The WAL sync and checkpoint in flight, if any (see `afterCommit`). */
  private walSync?: Promise<void>;
  /** The WAL file, opened for syncing it (never for reading or writing). */
  private walFile?: FileHandle;
  /** Keys found by hash, as of `keysAsOf` (see `findKeyByHash`). */
  private readonly keysByHash = new Map<string, ApiKeyRecord>();
  private keysAsOf = -1;
  /** `data_version` as read in this round of the event loop; undefined once the round is over. */
  private versionThisRound?: number;

  constructor(dataDir: string) {
    super();
    privateDir(dataDir);
    this.file = join(dataDir, 'service.db');
    // SQLite gives the WAL and shared-memory files it creates the database file's mode.
    privateFile(this.file);
    privateIfPresent(`${this.file}-wal`, `${this.file}-shm`);
    this.db = new Database(this.file);
    this.db.pragma('journal_mode = WAL');
    // Keys and overrides: FULL syncs the WAL on every commit, so an answered write survives even a
    // crash of the machine.
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
    this.migrate();
    // Quota counters: one write per tool call, where a sync would cost more than the whole request.
    // NORMAL commits to the WAL without syncing it: a count survives any crash of the process and
    // every restart; a power loss can lose only the counts since the WAL was last synced (by the
    // next key or override write, or a checkpoint).
    this.counters = new Database(this.file);
    this.counters.pragma('synchronous = NORMAL');
    this.counters.pragma('busy_timeout = 5000');
    this.stmt = {
      insertKey: this.db.prepare(
        `INSERT INTO api_keys (id, name, prefix, hash, scopes, plan, daily_limit, rate_limit,
           created_at, expires_at, revoked_at, last_used_at, enabled, previous_hash,
           previous_key_expires_at)
         VALUES (@id, @name, @prefix, @hash, @scopes, @plan, @daily_limit, @rate_limit,
           @created_at, @expires_at, @revoked_at, @last_used_at, @enabled, @previous_hash,
           @previous_key_expires_at)`,
      ),
      countKeys: this.db.prepare('SELECT COUNT(*) AS n FROM api_keys').pluck(),
      byHash: this.db.prepare('SELECT * FROM api_keys WHERE hash = @hash OR previous_hash = @hash'),
      byId: this.db.prepare('SELECT * FROM api_keys WHERE id = ?'),
      list: this.db.prepare('SELECT * FROM api_keys ORDER BY created_at, id LIMIT ?'),
      listAfter: this.db.prepare(
        'SELECT * FROM api_keys WHERE (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ?',
      ),
      rotate: this.db.prepare(
        `UPDATE api_keys SET hash = @hash, prefix = @prefix, previous_hash = @previous_hash,
           previous_key_expires_at = @previous_key_expires_at WHERE id = @id`,
      ),
      appendAudit: this.db.prepare(
        `INSERT INTO audit_log (at, actor_key_id, action, target, request_id, details)
         VALUES (@at, @actor_key_id, @action, @target, @request_id, @details) RETURNING id`,
      ),
      pruneAudit: this.db.prepare('DELETE FROM audit_log WHERE at < ?'),
      listAudit: this.db.prepare(
        'SELECT * FROM audit_log WHERE id < ? AND at >= ? ORDER BY id DESC LIMIT ?',
      ),
      idemPrune: this.db.prepare(
        'DELETE FROM idempotency WHERE key_id = ? AND expires_ms <= ? RETURNING bytes',
      ),
      idemGet: this.db.prepare(
        'SELECT fingerprint, token, status, body FROM idempotency WHERE key_id = ? AND scope = ?',
      ),
      idemTotals: this.db.prepare('SELECT entries, bytes FROM idempotency_totals WHERE key_id = ?'),
      idemOldest: this.db
        .prepare('SELECT MIN(expires_ms) FROM idempotency WHERE key_id = ?')
        .pluck(),
      idemStart: this.db.prepare(
        `INSERT INTO idempotency (key_id, scope, fingerprint, token, expires_ms, bytes)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      idemComplete: this.db.prepare(
        `UPDATE idempotency SET status = ?, body = ?, expires_ms = ?, bytes = bytes + ?
         WHERE key_id = ? AND scope = ? AND token = ? AND status IS NULL`,
      ),
      idemRelease: this.db.prepare(
        `DELETE FROM idempotency WHERE key_id = ? AND scope = ? AND token = ? AND status IS NULL
         RETURNING bytes`,
      ),
      idemPurgeSlice: this.db.prepare(
        `DELETE FROM idempotency WHERE (key_id, scope) IN
           (SELECT key_id, scope FROM idempotency WHERE expires_ms <= ? LIMIT ${PURGE_SLICE})
         RETURNING key_id, bytes`,
      ),
      idemAdd: this.db.prepare(
        `INSERT INTO idempotency_totals (key_id, entries, bytes) VALUES (?, ?, ?)
         ON CONFLICT(key_id) DO UPDATE SET entries = entries + excluded.entries,
           bytes = bytes + excluded.bytes`,
      ),
      idemForgetEmpty: this.db.prepare('DELETE FROM idempotency_totals WHERE entries <= 0'),
      revoke: this.db.prepare(
        'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?',
      ),
      touch: this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?'),
      overrides: this.db.prepare('SELECT key, value FROM config_overrides'),
      setOverride: this.db.prepare(
        `INSERT INTO config_overrides (key, value, updated_at) VALUES (?, ?, ?)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      ),
      deleteOverride: this.db.prepare('DELETE FROM config_overrides WHERE key = ?'),
    };
    this.counterStmt = {
      // One statement: the row is created, or incremented only while below the limit (a limit of 0
      // is refused before it). The VALUES form is several times faster than INSERT … SELECT.
      consume: this.counters
        .prepare(
          `INSERT INTO usage_counters (key_id, day, count) VALUES (?, ?, 1)
           ON CONFLICT(key_id, day) DO UPDATE SET count = count + 1 WHERE count < ?
           RETURNING count`,
        )
        .pluck(),
      usage: this.counters
        .prepare('SELECT count FROM usage_counters WHERE key_id = ? AND day = ?')
        .pluck(),
      pruneUsage: this.counters.prepare('DELETE FROM usage_counters WHERE day < ?'),
      days: this.counters.prepare(
        'SELECT day, count FROM usage_counters WHERE key_id = ? AND day >= ? AND day <= ?',
      ),
      dataVersion: this.counters.prepare('PRAGMA data_version').pluck(),
    };
    // Run as BEGIN IMMEDIATE: the write lock is taken first, never upgraded from a read lock.
    this.countAll = this.counters.transaction((batch: PendingCount[]) =>
      batch.map((count) => this.countOne(count)),
    );
    this.pruneOldUsage(new Date().toISOString().slice(0, 10));
  }

  describe(): string {
    return this.file;
  }

  private migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    for (let v = version; v < MIGRATIONS.length; v++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[v]);
        this.db.pragma(`user_version = ${v + 1}`);
      })();
    }
  }

  /** The day whose counters were last pruned: pruning runs once per new UTC day seen. */
  private prunedOn = '';

  /** Counters past the usage history's 90 days are of no use to anyone. */
  private pruneOldUsage(today: string): void {
    if (today <= this.prunedOn) return;
    this.prunedOn = today;
    this.counterStmt.pruneUsage.run(dayBefore(today, USAGE_KEEP_DAYS - 1));
  }

  private run<T>(work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(storeFailure(error));
    }
  }

  private keyParams(key: NewKeyRecord) {
    return {
      previous_hash: null,
      previous_key_expires_at: null,
      ...key,
      scopes: JSON.stringify(key.scopes),
      enabled: key.enabled === false ? 0 : 1,
    };
  }

  insertKey(key: NewKeyRecord): Promise<void> {
    return this.run(() => {
      this.stmt.insertKey.run(this.keyParams(key));
    });
  }

  insertKeyIfNone(key: NewKeyRecord): Promise<boolean> {
    return this.run(() =>
      this.db
        .transaction(() => {
          if ((this.stmt.countKeys.get() as number) > 0) return false;
          this.stmt.insertKey.run(this.keyParams(key));
          return true;
        })
        .immediate(),
    );
  }

  /**
   * Every authenticated call's lookup, answered from memory while no connection but the counters'
   * own has committed anything: the counters connection's `data_version` changes with every commit
   * of any other connection, this store's `db` (every key write) and other processes (the CLI,
   * other instances) alike, and never with its own counts. A change made anywhere is read by the
   * next call, as before; only the lookup is saved (a cold SQLite statement costs ~15 µs per call).
   */
  findKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    return this.run(() => {
      const version = this.dataVersion();
      if (version !== this.keysAsOf) {
        this.keysByHash.clear();
        this.keysAsOf = version;
      }
      const known = this.keysByHash.get(hash);
      if (known) return known;
      const row = this.stmt.byHash.get({ hash }) as KeyRow | undefined;
      if (!row) return undefined;
      const record = toRecord(row);
      Object.freeze(record.scopes);
      Object.freeze(record);
      // Only keys found are kept, so unknown tokens cannot grow it: one entry per live secret.
      if (this.keysByHash.size >= MAX_CACHED_KEYS) this.keysByHash.clear();
      this.keysByHash.set(hash, record);
      return record;
    });
  }

  /**
   * `data_version`, read once per round of the event loop: the lookups of every request read in one
   * poll phase share it (reading it takes the WAL index's lock: ~2.5 µs, 4 % of a call on Fastify).
   * A change is still read by any request that starts after the change's answer: such a request's
   * bytes arrive after the commit, so the poll that hands them over, and the read of this round,
   * come after it too. This process's own key writes end the round's value at once.
   */
  private dataVersion(): number {
    if (this.versionThisRound === undefined) {
      this.versionThisRound = this.counterStmt.dataVersion.get() as number;
      setImmediate(() => (this.versionThisRound = undefined));
    }
    return this.versionThisRound;
  }

  /** After a write of this process to a key: the next lookup reads `data_version` again. */
  private keysWritten(): void {
    this.versionThisRound = undefined;
  }

  findKeyById(id: string): Promise<ApiKeyRecord | undefined> {
    return this.run(() => {
      const row = this.stmt.byId.get(id) as KeyRow | undefined;
      return row && toRecord(row);
    });
  }

  listKeys(page: { after?: KeyPosition; limit?: number } = {}): Promise<ApiKeyRecord[]> {
    const limit = page.limit ?? -1;
    return this.run(() => {
      const rows = page.after
        ? this.stmt.listAfter.all(page.after.created_at, page.after.id, limit)
        : this.stmt.list.all(limit);
      return (rows as KeyRow[]).map(toRecord);
    });
  }

  updateKey(id: string, changes: KeyChanges): Promise<ApiKeyRecord | undefined> {
    const columns = Object.keys(changes).filter((c) =>
      ['name', 'scopes', 'plan', 'daily_limit', 'rate_limit', 'enabled'].includes(c),
    );
    const params: Record<string, unknown> = { ...changes, id };
    if (changes.scopes) params.scopes = JSON.stringify(changes.scopes);
    if (changes.enabled !== undefined) params.enabled = changes.enabled ? 1 : 0;
    return this.run(() => {
      if (columns.length) {
        const set = columns.map((c) => `${c} = @${c}`).join(', ');
        this.db.prepare(`UPDATE api_keys SET ${set} WHERE id = @id`).run(params);
        this.keysWritten();
      }
      const row = this.stmt.byId.get(id) as KeyRow | undefined;
      return row && toRecord(row);
    });
  }

  rotateKey(id: string, rotation: KeyRotation): Promise<ApiKeyRecord | undefined> {
    return this.run(() => {
      this.stmt.rotate.run({ ...rotation, id });
      this.keysWritten();
      const row = this.stmt.byId.get(id) as KeyRow | undefined;
      return row && toRecord(row);
    });
  }

  revokeKey(id: string, at: string): Promise<boolean> {
    return this.run(() => {
      const { changes } = this.stmt.revoke.run(at, id);
      this.keysWritten();
      return changes > 0;
    });
  }

  touchKey(id: string, at: string): Promise<void> {
    return this.run(() => {
      this.stmt.touch.run(at, id);
    });
  }

  getOverrides(): Promise<Record<string, unknown>> {
    return this.run(() => {
      const rows = this.stmt.overrides.all() as { key: string; value: string }[];
      return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]));
    });
  }

  async setOverride(key: string, value: unknown): Promise<void> {
    await this.run(() =>
      this.stmt.setOverride.run(key, JSON.stringify(value), new Date().toISOString()),
    );
    this.notifyOverridesChanged();
  }

  async deleteOverride(key: string): Promise<void> {
    await this.run(() => this.stmt.deleteOverride.run(key));
    this.notifyOverridesChanged();
  }

  /**
   * Counts one call, in a group commit: the counts asked for while the event loop serves one round
   * of I/O are written together, in one transaction, when that round is done (`setImmediate`).
   * Each count is still checked and written on its own, in order, so exactly `limit` calls are
   * allowed however many arrive at once and on however many instances; only the commit is shared.
   * A commit takes SQLite's locks, writes a WAL frame and costs ~17 µs on a busy process, more
   * than the rest of the count; under load one commit serves tens of calls (docs/performance.md).
   */
  consumeQuota(keyId: string, day: string, limit: number | null): Promise<QuotaResult> {
    return new Promise((resolve, reject) => {
      const first = this.pendingCounts.push({ keyId, day, limit, resolve, reject }) === 1;
      if (first) setImmediate(() => this.commitCounts());
    });
  }

  /** Writes the pending counts in one transaction and answers each; a failure answers them all. */
  private commitCounts(): void {
    const batch = this.pendingCounts;
    if (!batch.length) return;
    this.pendingCounts = [];
    let results: QuotaResult[];
    try {
      results = batch.length === 1 ? [this.countOne(batch[0])] : this.countAll.immediate(batch);
    } catch (error) {
      const failure = storeFailure(error);
      for (const count of batch) count.reject(failure);
      return;
    }
    this.afterCommit();
    batch.forEach((count, i) => count.resolve(results[i]));
  }

  private countOne({ keyId, day, limit }: PendingCount): QuotaResult {
    const { consume, usage } = this.counterStmt;
    this.pruneOldUsage(day);
    const counted =
      limit !== null && limit <= 0
        ? undefined
        : (consume.get(keyId, day, limit ?? Number.MAX_SAFE_INTEGER) as number | undefined);
    if (counted !== undefined) return { allowed: true, used: counted };
    return { allowed: false, used: (usage.get(keyId, day) as number | undefined) ?? 0 };
  }

  /**
   * Keeps the WAL bounded without stalling requests. SQLite's automatic checkpoint never runs here:
   * it is called when a statement steps to its end, and a count (`INSERT … RETURNING` read with
   * `get`) commits when it is reset instead. Unchecked, the WAL grows by a 4 KiB page per commit.
   *
   * A checkpoint syncs the WAL, copies its pages into the database file and syncs that. With
   * `synchronous=NORMAL` nothing else syncs the counts, so after 1,000 commits the WAL holds 4 MB
   * that the disk has not seen, and that sync is most of the checkpoint (measured: see
   * docs/performance.md, "WAL checkpoints"). Run inside the 1,000th commit, it stalled every
   * request in flight. So after CHECKPOINT_EVERY commits the WAL file is synced on libuv's thread
   * pool while requests go on; when that is done, the checkpoint runs from its callback, between
   * requests, and has only the few pages written meanwhile left to sync. If it has not run after
   * CHECKPOINT_AT_THE_LATEST commits (a slow disk, or a thread pool busy elsewhere), the commit
   * that reaches it checkpoints synchronously as before: the WAL never holds more than that.
   */
  private afterCommit(): void {
    const commits = ++this.commitsSinceCheckpoint;
    if (commits >= CHECKPOINT_AT_THE_LATEST) this.checkpoint();
    else if (commits >= CHECKPOINT_EVERY) this.walSync ??= this.syncThenCheckpoint();
  }

  /**
   * Never throws: it runs after a commit, whose counts stand and are answered whatever happens
   * here. A checkpoint that fails (a disk error) leaves the WAL as it is; the next one, 1,000
   * commits on, copies its pages.
   */
  private checkpoint(): void {
    this.commitsSinceCheckpoint = 0;
    try {
      this.counters.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Nothing lost: the pages stay in the WAL.
    }
  }

  private async syncThenCheckpoint(): Promise<void> {
    try {
      this.walFile ??= await open(`${this.file}-wal`, 'r');
      await this.walFile.datasync();
      if (this.counters.open && this.commitsSinceCheckpoint >= CHECKPOINT_EVERY) this.checkpoint();
    } catch {
      // Nothing lost: the next count tries again, and CHECKPOINT_AT_THE_LATEST bounds the WAL.
    } finally {
      this.walSync = undefined;
    }
  }

  /** Settles the WAL sync and checkpoint in flight, if any. */
  async settled(): Promise<void> {
    await this.walSync;
  }

  getUsage(keyId: string, day: string): Promise<number> {
    return this.run(() => (this.counterStmt.usage.get(keyId, day) as number | undefined) ?? 0);
  }

  getUsageDays(keyId: string, days: string[]): Promise<number[]> {
    if (!days.length) return Promise.resolve([]);
    const sorted = [...days].sort();
    return this.run(() => {
      const rows = this.counterStmt.days.all(keyId, sorted[0], sorted[sorted.length - 1]) as {
        day: string;
        count: number;
      }[];
      const counts = new Map(rows.map((r) => [r.day, r.count]));
      return days.map((day) => counts.get(day) ?? 0);
    });
  }

  appendAudit(entry: Omit<AuditEntry, 'id'>, keepSince: string): Promise<AuditEntry> {
    return this.run(() =>
      this.db.transaction(() => {
        this.stmt.pruneAudit.run(keepSince);
        const id = this.stmt.appendAudit
          .pluck()
          .get({ ...entry, details: JSON.stringify(entry.details) }) as number;
        return { id, ...entry };
      })(),
    );
  }

  listAudit(query: { before?: number; limit: number; since: string }): Promise<AuditEntry[]> {
    const before = query.before ?? Number.MAX_SAFE_INTEGER;
    return this.run(() =>
      (this.stmt.listAudit.all(before, query.since, query.limit) as AuditRow[]).map(toAuditEntry),
    );
  }

  beginIdempotent(
    claim: IdempotencyClaim,
    nowMs: number,
    runningUntilMs: number,
    caps: IdempotencyCaps,
  ): Promise<IdempotencyBegin> {
    const { keyId, scope, fingerprint, token, markerBytes } = claim;
    return this.run(() =>
      this.db
        .transaction((): IdempotencyBegin => {
          const expired = this.stmt.idemPrune.all(keyId, nowMs) as { bytes: number }[];
          if (expired.length) this.addToTotals(keyId, -expired.length, -sumOf(expired));
          const row = this.stmt.idemGet.get(keyId, scope) as IdempotencyRow | undefined;
          if (row) {
            if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
            if (row.status === null) return { state: 'in_progress' };
            return { state: 'done', status: row.status, body: row.body ?? 'null' };
          }
          const held = this.stmt.idemTotals.get(keyId) as
            { entries: number; bytes: number } | undefined;
          if (
            held &&
            held.entries > 0 &&
            (held.entries >= caps.entries || held.bytes >= caps.bytes)
          ) {
            return { state: 'full', retryAtMs: this.stmt.idemOldest.get(keyId) as number };
          }
          this.stmt.idemStart.run(keyId, scope, fingerprint, token, runningUntilMs, markerBytes);
          this.addToTotals(keyId, 1, markerBytes);
          return { state: 'started' };
        })
        .immediate(),
    );
  }

  private addToTotals(keyId: string, entries: number, bytes: number): void {
    this.stmt.idemAdd.run(keyId, entries, bytes);
  }

  completeIdempotent(
    claim: IdempotencyClaim,
    status: number,
    body: string,
    keepUntilMs: number,
    answerBytes: number,
  ): Promise<void> {
    return this.run(() =>
      this.db.transaction(() => {
        const { changes } = this.stmt.idemComplete.run(
          status,
          body,
          keepUntilMs,
          answerBytes,
          claim.keyId,
          claim.scope,
          claim.token,
        );
        if (changes) this.addToTotals(claim.keyId, 0, answerBytes);
      })(),
    );
  }

  releaseIdempotent(claim: IdempotencyClaim): Promise<void> {
    return this.run(() =>
      this.db.transaction(() => {
        const gone = this.stmt.idemRelease.all(claim.keyId, claim.scope, claim.token) as {
          bytes: number;
        }[];
        if (gone.length) this.addToTotals(claim.keyId, -gone.length, -sumOf(gone));
      })(),
    );
  }

  /** Slice after slice of PURGE_SLICE entries, each its own transaction, the event loop free between. */
  async purgeIdempotent(nowMs: number): Promise<number> {
    let purged = 0;
    for (;;) {
      const slice = await this.run(() =>
        this.db.transaction(() => {
          const gone = this.stmt.idemPurgeSlice.all(nowMs) as { key_id: string; bytes: number }[];
          const byKey = new Map<string, { entries: number; bytes: number }>();
          for (const { key_id, bytes } of gone) {
            const totals = byKey.get(key_id) ?? { entries: 0, bytes: 0 };
            totals.entries += 1;
            totals.bytes += bytes;
            byKey.set(key_id, totals);
          }
          for (const [keyId, totals] of byKey)
            this.addToTotals(keyId, -totals.entries, -totals.bytes);
          if (gone.length) this.stmt.idemForgetEmpty.run();
          return gone.length;
        })(),
      );
      purged += slice;
      if (slice < PURGE_SLICE) return purged;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  ping(): Promise<void> {
    return this.run(() => {
      this.db.prepare('SELECT 1').get();
    });
  }

  /**
   * The main connection answers, and the file on disk is still a database: a fresh read-only
   * connection reads its header (the long-lived connection reads its page cache and would not
   * notice the file being deleted or overwritten, which the next start would). One page, whatever
   * the size of the database. No Redis: no topology.
   */
  probe(): Promise<undefined> {
    return this.run(() => {
      this.db.prepare('SELECT 1').get();
      const check = new Database(this.file, { readonly: true, fileMustExist: true, timeout: 1000 });
      try {
        check.pragma('schema_version');
      } finally {
        check.close();
      }
      return undefined;
    });
  }

  /**
   * Checks the database as it is on disk, through a connection of its own: the long-lived one reads
   * from its page cache and would not notice the file (or its WAL) being deleted or overwritten,
   * which the next start would. A file that cannot be opened or read is unavailable (rejects).
   */
  checkIntegrity(): Promise<string[]> {
    return this.run(() => {
      if (!this.db.open) throw new StoreUnavailableError('The SQLite store is closed');
      const check = new Database(this.file, { readonly: true, fileMustExist: true, timeout: 1000 });
      try {
        const rows = check.pragma('quick_check') as { quick_check: string }[];
        return rows.map((r) => r.quick_check).filter((r) => r !== 'ok');
      } finally {
        check.close();
      }
    });
  }

  async close(): Promise<void> {
    // Counts already asked for are written, not dropped.
    this.commitCounts();
    await this.settled();
    if (this.counters.open) this.counters.close();
    if (this.db.open) this.db.close();
    await this.walFile?.close();
    this.walFile = undefined;
  }
}
