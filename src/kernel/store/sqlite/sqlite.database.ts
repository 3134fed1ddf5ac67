import Database from 'better-sqlite3';
import { FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { privateDir, privateFile, privateIfPresent } from '../../common/private-files';
import { Store, StoreUnavailableError } from '../store';
import { GroupCommit } from './group-commit';
import { quickCheckOffThread, UNAVAILABLE_CODES } from './quick-check';
import { MIGRATIONS } from './sqlite.migrations';
import { spans } from '../../common/tracing-gate';

/** Commits of counts after which the WAL is synced and checkpointed, off the request (see `afterCommit`). */
const CHECKPOINT_EVERY = 1000;
/** Commits of counts after which the checkpoint runs at once if the one off the request has not yet. */
export const CHECKPOINT_AT_THE_LATEST = 2 * CHECKPOINT_EVERY;

/** What a failed statement is to callers: a store that is away (503), or the error itself. */
export function storeFailure(error: unknown): Error {
  if (error instanceof Database.SqliteError && UNAVAILABLE_CODES.test(error.code)) {
    return new StoreUnavailableError(`SQLite store failed: ${error.code}`, { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * The embedded store: one SQLite file in DATA_DIR, WAL mode, shared by every concern's SQLite
 * implementation through two connections:
 * - `db`, for keys, overrides, audit and idempotency: `synchronous=FULL` syncs the WAL on every
 *   commit, so an answered write survives even a crash of the machine;
 * - `counters`, for what is written on every tool call (the usage counters, long-running calls'
 *   records), in group commits (`groupCommit`), where a sync would cost more than the whole
 *   request. NORMAL commits to the WAL without syncing it: a write survives any crash of the
 *   process and every restart; a power loss can lose only the writes since the WAL was last
 *   synced (by the next key or override write, or a checkpoint). Its commits do not change its
 *   own `data_version`, so they leave the key records kept between calls valid.
 */
export class SqliteDatabase extends Store {
  readonly kind = 'sqlite' as const;
  readonly file: string;
  readonly db: Database.Database;
  readonly counters: Database.Database;
  private readonly dataVersionStmt: Database.Statement;
  /** `data_version` as read in this round of the event loop; undefined once the round is over. */
  private versionThisRound?: number;
  private commitsSinceCheckpoint = 0;
  /** The WAL sync and checkpoint in flight, if any (see `afterCommit`). */
  private walSync?: Promise<void>;
  /** The WAL file, opened for syncing it (never for reading or writing). */
  private walFile?: FileHandle;
  /** The integrity check under way (checkIntegrity): calls at once share it. */
  private integrity?: Promise<string[]>;
  private readonly commits: GroupCommit;

  constructor(dataDir: string) {
    super();
    privateDir(dataDir);
    this.file = join(dataDir, 'service.db');
    // SQLite gives the WAL and shared-memory files it creates the database file's mode.
    privateFile(this.file);
    privateIfPresent(`${this.file}-wal`, `${this.file}-shm`);
    this.db = spans.connection(new Database(this.file));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
    this.migrate();
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS schema_versions (concern TEXT PRIMARY KEY, version INTEGER NOT NULL)',
    );
    this.counters = spans.connection(new Database(this.file));
    this.counters.pragma('synchronous = NORMAL');
    this.counters.pragma('busy_timeout = 5000');
    this.dataVersionStmt = this.counters.prepare('PRAGMA data_version').pluck();
    this.commits = new GroupCommit(this.counters, storeFailure, () => this.afterCommit());
  }

  /**
   * Runs `work`, statements of the `counters` connection, in the next group commit (GroupCommit):
   * the writes of every concern asked for in one round of the event loop share one transaction.
   */
  groupCommit<T>(work: () => T): Promise<T> {
    return this.commits.write(work);
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

  /**
   * The tables of a concern added after the first ones: its own migrations, in order, each run once
   * (recorded in `schema_versions` under the concern's name).
   */
  ensureSchema(concern: string, migrations: readonly string[]): void {
    const done =
      (this.db
        .prepare('SELECT version FROM schema_versions WHERE concern = ?')
        .pluck()
        .get(concern) as number | undefined) ?? 0;
    for (let v = done; v < migrations.length; v++) {
      this.db.transaction(() => {
        this.db.exec(migrations[v]);
        this.db
          .prepare(
            `INSERT INTO schema_versions (concern, version) VALUES (?, ?)
             ON CONFLICT(concern) DO UPDATE SET version = excluded.version`,
          )
          .run(concern, v + 1);
      })();
    }
  }

  /** Runs synchronous work of a statement as a promise: a failure is what callers expect (storeFailure). */
  attempt<T>(work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(storeFailure(error));
    }
  }

  /**
   * `data_version` of the counters connection, read once per round of the event loop: it changes
   * with every commit of any other connection (this process's `db`, other processes), never with
   * the counters' own. The lookups of every request read in one poll phase share it (reading it
   * takes the WAL index's lock; docs/performance.md, "Why the hot path is written as it is"). A change is still read by any
   * request that starts after the change's answer: such a request's bytes arrive after the commit,
   * so the poll that hands them over, and the read of this round, come after it too.
   */
  dataVersion(): number {
    if (this.versionThisRound === undefined) {
      this.versionThisRound = this.dataVersionStmt.get() as number;
      setImmediate(() => (this.versionThisRound = undefined));
    }
    return this.versionThisRound;
  }

  /** After a write of this process: the next read of `dataVersion` asks SQLite again. */
  written(): void {
    this.versionThisRound = undefined;
  }

  /**
   * Keeps the WAL bounded without stalling requests, after each commit of the counters. SQLite's
   * automatic checkpoint never runs here: it is called when a statement steps to its end, and a
   * count (`INSERT … RETURNING` read with `get`) commits when it is reset instead. Unchecked, the
   * WAL grows by a 4 KiB page per commit.
   *
   * A checkpoint syncs the WAL, copies its pages into the database file and syncs that. With
   * `synchronous=NORMAL` nothing else syncs the counts, so after 1,000 commits the WAL holds 4 MB
   * that the disk has not seen, and that sync is most of the checkpoint (measured: see
   * bench/history/2026-11.md, "WAL checkpoints"). Run inside the 1,000th commit, it stalled every
   * request in flight. So after CHECKPOINT_EVERY commits the WAL file is synced on libuv's thread
   * pool while requests go on; when that is done, the checkpoint runs from its callback, between
   * requests, and has only the few pages written meanwhile left to sync. If it has not run after
   * CHECKPOINT_AT_THE_LATEST commits (a slow disk, or a thread pool busy elsewhere), the commit
   * that reaches it checkpoints synchronously as before: the WAL never holds more than that.
   */
  afterCommit(): void {
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

  ping(): Promise<void> {
    return this.attempt(() => {
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
    return this.attempt(() => {
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
   * Checks the database as it is on disk, through a connection of its own (the long-lived one reads
   * from its page cache and would not notice the file, or its WAL, being deleted or overwritten,
   * which the next start would), in a worker thread: `quick_check` reads every page. Checks asked
   * for while one runs share it. A file that cannot be opened or read is unavailable (rejects).
   */
  checkIntegrity(): Promise<string[]> {
    if (!this.db.open)
      return Promise.reject(new StoreUnavailableError('The SQLite store is closed'));
    this.integrity ??= quickCheckOffThread(this.file).finally(() => (this.integrity = undefined));
    return this.integrity;
  }

  async close(): Promise<void> {
    // What the concerns asked to write (counts, records) is written, not dropped.
    this.commits.commit();
    await this.settled();
    if (this.counters.open) this.counters.close();
    if (this.db.open) this.db.close();
    await this.walFile?.close();
    this.walFile = undefined;
  }
}
