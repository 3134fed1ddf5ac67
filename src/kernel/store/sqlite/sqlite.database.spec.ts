import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SqliteIdempotencyStore } from '../../../idempotency/sqlite-idempotency.store';
import { SqliteKeyStore } from '../../../subjects/sqlite-key.store';
import { SqliteUsageStore } from '../../../limits/sqlite-usage.store';
import { CHECKPOINT_AT_THE_LATEST, SqliteDatabase } from './sqlite.database';

/**
 * The embedded store's concerns on one database, as the server's features make them on the backend, each
 * method where its concern has it: the specs below read as one store.
 */
class SqliteStore {
  readonly database: SqliteDatabase;
  readonly usage: SqliteUsageStore;
  readonly keys: SqliteKeyStore;
  readonly idempotency: SqliteIdempotencyStore;

  constructor(dir: string) {
    this.database = new SqliteDatabase(dir);
    this.usage = new SqliteUsageStore(this.database);
    this.keys = new SqliteKeyStore(this.database);
    this.idempotency = new SqliteIdempotencyStore(this.database);
  }

  get file() {
    return this.database.file;
  }
  get counters() {
    return this.database.counters;
  }
  settled = () => this.database.settled();
  close = () => this.database.close();
  /** One call of cost 1 on `day`, against a daily limit only (the specs' counting). */
  consumeQuota = async (keyId: string, day: string, limit: number | null) => {
    const charge = { day, dailyLimit: limit, month: day.slice(0, 7), monthlyLimit: null };
    const { allowed, used } = await this.usage.consumeQuota(keyId, {
      ...charge,
      cost: 1,
      tool: 'greet',
    });
    return { allowed, used };
  };
  getUsage: SqliteUsageStore['getUsage'] = (...args) => this.usage.getUsage(...args);
  insertKey: SqliteKeyStore['insertKey'] = (...args) => this.keys.insertKey(...args);
  findKeyByHash: SqliteKeyStore['findKeyByHash'] = (...args) => this.keys.findKeyByHash(...args);
  updateKey: SqliteKeyStore['updateKey'] = (...args) => this.keys.updateKey(...args);
  rotateKey: SqliteKeyStore['rotateKey'] = (...args) => this.keys.rotateKey(...args);
  revokeKey: SqliteKeyStore['revokeKey'] = (...args) => this.keys.revokeKey(...args);
  beginIdempotent: SqliteIdempotencyStore['beginIdempotent'] = (...args) =>
    this.idempotency.beginIdempotent(...args);
  releaseIdempotent: SqliteIdempotencyStore['releaseIdempotent'] = (...args) =>
    this.idempotency.releaseIdempotent(...args);
  purgeIdempotent: SqliteIdempotencyStore['purgeIdempotent'] = (...args) =>
    this.idempotency.purgeIdempotent(...args);
}

// What a usage store does on either backend is its contract's (src/limits/usage.store.spec.ts);
// here, what the embedded database adds: group commits, the WAL's checkpoints, `data_version`.
describe('SqliteStore quota counters', () => {
  let store: SqliteStore;
  /** Lets go of libuv's thread pool, when a test holds it (also after a failed or timed-out test). */
  let release: (() => Promise<void>) | undefined;

  beforeEach(() => {
    store = new SqliteStore(mkdtempSync(join(tmpdir(), 'tis-sqlite-')));
  });
  afterEach(async () => {
    await release?.();
    release = undefined;
    await store.close();
  });

  // Frames in the WAL file: a 32-byte header, then a 24-byte header and a 4 KiB page per frame. The
  // file keeps its largest size: after a checkpoint SQLite writes it again from the start.
  const walFrames = () => (statSync(`${store.file}-wal`).size - 32) / (24 + 4096);
  // One count at a time: each is a group commit of its own.
  const count = async (n: number) => {
    for (let i = 0; i < n; i++) await store.consumeQuota('k', '2031-01-01', null);
  };

  it('commits the counts asked for at once together, each checked against the limit in turn', async () => {
    await count(1);
    const before = walFrames();
    const results = await Promise.all(
      Array.from({ length: 200 }, () => store.consumeQuota('k', '2031-01-01', 150)),
    );
    // One commit: a frame for each counter's page (the day's, the month's, the tool's), not 200.
    expect(walFrames() - before).toBeLessThanOrEqual(3);
    expect(results.filter((r) => r.allowed).map((r) => r.used)).toEqual(
      Array.from({ length: 149 }, (_, i) => i + 2),
    );
    expect(results.filter((r) => !r.allowed)).toHaveLength(51);
    expect(await store.getUsage('k', '2031-01-01')).toBe(150);
  });

  it('writes the counts still pending when it closes', async () => {
    const pending = store.consumeQuota('k', '2031-01-01', null);
    await store.close();
    expect(await pending).toEqual({ allowed: true, used: 1 });
    store = new SqliteStore(dirname(store.file));
    expect(await store.getUsage('k', '2031-01-01')).toBe(1);
  });

  it('checkpoints the WAL after 1,000 commits, not inside one, and SQLite then writes it from the start', async () => {
    await count(1000);
    // The 1,000th commit started the WAL sync on the thread pool and did not checkpoint itself.
    expect(walFrames()).toBeGreaterThanOrEqual(1000);
    await store.settled();
    await count(1000);
    // Synced and checkpointed between the two runs: the second wrote over the first.
    expect(walFrames()).toBeLessThan(1100);
    expect(await store.getUsage('k', '2031-01-01')).toBe(2000);
  });

  /**
   * Holds every thread of libuv's pool: opening a FIFO for reading blocks a thread until a writer
   * opens it. Meanwhile the WAL sync off the request cannot start. afterEach lets go.
   */
  const holdThreadPool = (): void => {
    const dir = mkdtempSync(join(tmpdir(), 'tis-fifo-'));
    const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    const fifos = Array.from({ length: threads }, (_, i) => join(dir, `fifo-${i}`));
    for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
    const held = fifos.map((fifo) => open(fifo, 'r'));
    release = async () => {
      for (const fifo of fifos)
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      for (const handle of await Promise.all(held)) await handle.close();
    };
  };

  it('bounds the WAL when the sync off the request cannot run (a thread pool busy elsewhere)', async () => {
    holdThreadPool();
    await count(CHECKPOINT_AT_THE_LATEST + 500);
    // Without checkpoints this WAL would hold 2,500 frames; the few more are the schema's.
    expect(walFrames()).toBeLessThanOrEqual(CHECKPOINT_AT_THE_LATEST + 50);
    expect(await store.getUsage('k', '2031-01-01')).toBe(CHECKPOINT_AT_THE_LATEST + 500);
  });

  it('answers the counts of a commit whose checkpoint fails, and goes on counting', async () => {
    // A disk that fails the checkpoint cannot be had here: the counters connection's checkpoint
    // throws SQLite's I/O error instead. The commit before it is made and its counts stand.
    const counters = store.counters;
    const pragma = counters.pragma.bind(counters);
    counters.pragma = (source: string, options?: Database.PragmaOptions) => {
      if (source.startsWith('wal_checkpoint')) {
        throw new Database.SqliteError('disk I/O error', 'SQLITE_IOERR');
      }
      return pragma(source, options);
    };
    holdThreadPool();
    // Before the fix, the counts of the commit whose checkpoint threw were never answered.
    await count(CHECKPOINT_AT_THE_LATEST + 10);
    expect(await store.getUsage('k', '2031-01-01')).toBe(CHECKPOINT_AT_THE_LATEST + 10);
  });
});

describe('SqliteStore key lookups by hash', () => {
  let dir: string;
  let store: SqliteStore;
  const key = {
    id: 'key_1',
    name: 'one',
    prefix: 'sk_0000000',
    hash: 'h1',
    scopes: ['tools:invoke'],
    plan: 'free',
    daily_limit: null,
    rate_limit: null,
    created_at: '2031-01-01T00:00:00.000Z',
    expires_at: null,
    revoked_at: null,
    last_used_at: null,
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tis-sqlite-'));
    store = new SqliteStore(dir);
    await store.insertKey(key);
  });
  afterEach(() => store.close());

  it('reads a change made through the same store at the next lookup', async () => {
    expect((await store.findKeyByHash('h1'))?.revoked_at).toBeNull();
    await store.revokeKey('key_1', '2031-01-02T00:00:00.000Z');
    expect((await store.findKeyByHash('h1'))?.revoked_at).toBe('2031-01-02T00:00:00.000Z');
    await store.rotateKey('key_1', {
      hash: 'h2',
      prefix: 'sk_1111111',
      previous_hash: null,
      previous_key_expires_at: null,
    });
    expect(await store.findKeyByHash('h1')).toBeUndefined();
    expect((await store.findKeyByHash('h2'))?.id).toBe('key_1');
  });

  it('reads a change made by another process (a second connection) at the next lookup, counts or not', async () => {
    const other = new SqliteStore(dir);
    try {
      expect((await store.findKeyByHash('h1'))?.enabled).toBe(true);
      await store.consumeQuota('key_1', '2031-01-01', null);
      await other.updateKey('key_1', { enabled: false });
      await store.consumeQuota('key_1', '2031-01-01', null);
      expect((await store.findKeyByHash('h1'))?.enabled).toBe(false);
      await other.consumeQuota('key_1', '2031-01-01', null);
      // A count of a new day starts the prune of past usage, in commits of the same event loop as
      // this store's (a second process's would not share it): let it end before the change.
      await other.usage.pruned();
      await other.updateKey('key_1', { enabled: true, scopes: ['admin'] });
      expect(await store.findKeyByHash('h1')).toMatchObject({ enabled: true, scopes: ['admin'] });
    } finally {
      await other.close();
    }
  });

  it("reads another process's change in the next round of the event loop, with nothing between", async () => {
    const other = new SqliteStore(dir);
    try {
      expect((await store.findKeyByHash('h1'))?.enabled).toBe(true);
      await other.updateKey('key_1', { enabled: false });
      // A request sent after the change's answer is read in a later poll than the lookup above.
      await new Promise((resolve) => setImmediate(resolve));
      expect((await store.findKeyByHash('h1'))?.enabled).toBe(false);
      await other.revokeKey('key_1', '2031-01-02T00:00:00.000Z');
      await new Promise((resolve) => setImmediate(resolve));
      expect((await store.findKeyByHash('h1'))?.revoked_at).toBe('2031-01-02T00:00:00.000Z');
    } finally {
      await other.close();
    }
  });

  it('gives records no caller can change for the next one', async () => {
    const first = await store.findKeyByHash('h1');
    expect(() => (first?.scopes as string[]).push('admin')).toThrow(TypeError);
    expect((await store.findKeyByHash('h1'))?.scopes).toEqual(['tools:invoke']);
  });
});

describe('SqliteStore idempotency entries', () => {
  const claim = (scope: string, token = scope) => ({
    keyId: 'key_a',
    scope,
    fingerprint: 'f'.repeat(64),
    token,
    markerBytes: scope.length + 128,
  });
  const caps = { entries: 3, bytes: 1_000_000 };

  it('bounds a key by entries and answers when its oldest entry expires', async () => {
    const store = new SqliteStore(mkdtempSync(join(tmpdir(), 'tis-sqlite-')));
    try {
      for (const [i, scope] of ['a', 'b', 'c'].entries()) {
        expect(await store.beginIdempotent(claim(scope), 1000, 5000 + i, caps)).toEqual({
          state: 'started',
        });
      }
      expect(await store.beginIdempotent(claim('d'), 1000, 9000, caps)).toEqual({
        state: 'full',
        retryAtMs: 5000,
      });
      // A released marker frees its place; an expired one is forgotten by the next claim.
      await store.releaseIdempotent(claim('a'));
      expect((await store.beginIdempotent(claim('d'), 1000, 9000, caps)).state).toBe('started');
      expect((await store.beginIdempotent(claim('e'), 5001, 9000, caps)).state).toBe('started');
    } finally {
      await store.close();
    }
  });

  it('keeps the byte totals of a store made before they existed (migration), and purges by slices', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tis-sqlite-'));
    await new SqliteStore(dir).close();
    // A database as the previous version left it: entries, no byte column or totals.
    const db = new Database(join(dir, 'service.db'));
    db.exec(`DROP INDEX idempotency_expires; DROP TABLE idempotency_totals;
      ALTER TABLE idempotency DROP COLUMN bytes; PRAGMA user_version = 2;`);
    const insert = db.prepare(
      `INSERT INTO idempotency (key_id, scope, fingerprint, token, status, body, expires_ms)
       VALUES (?, ?, 'f', 't', 200, ?, ?)`,
    );
    for (let i = 0; i < 1500; i++) insert.run('key_old', `s${i}`, '{"x":1}', 1000);
    insert.run('key_new', 'kept', '{"y":2}', 10_000);
    db.close();
    const store = new SqliteStore(dir);
    try {
      const totals = (key: string) =>
        new Database(join(dir, 'service.db'), { readonly: true })
          .prepare('SELECT entries, bytes FROM idempotency_totals WHERE key_id = ?')
          .get(key);
      expect(totals('key_old')).toEqual({ entries: 1500, bytes: 1500 * (7 + 128) + 6390 });
      expect(await store.purgeIdempotent(2000)).toBe(1500);
      expect(totals('key_old')).toBeUndefined();
      expect(totals('key_new')).toEqual({ entries: 1, bytes: 7 + 4 + 128 });
    } finally {
      await store.close();
    }
  });
});
