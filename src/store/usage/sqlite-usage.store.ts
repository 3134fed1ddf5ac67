import type Database from 'better-sqlite3';
import { storeFailure, type SqliteDatabase } from '../sqlite/sqlite.database';
import { dayBefore, QuotaResult, USAGE_KEEP_DAYS, UsageStore } from './usage.store';

/** A quota count waiting for the next group commit (see `consumeQuota`). */
interface PendingCount {
  keyId: string;
  day: string;
  limit: number | null;
  resolve: (result: QuotaResult) => void;
  reject: (error: Error) => void;
}

/** Usage counters in the embedded store, on the database's counters connection (`usage_counters`). */
export class SqliteUsageStore extends UsageStore {
  private readonly consume: Database.Statement;
  private readonly usage: Database.Statement;
  private readonly pruneUsage: Database.Statement;
  private readonly days: Database.Statement;
  private readonly countAll: Database.Transaction<(batch: PendingCount[]) => QuotaResult[]>;
  /** Counts asked for since the last group commit (see `consumeQuota`). */
  private pendingCounts: PendingCount[] = [];
  /** The day whose counters were last pruned: pruning runs once per new UTC day seen. */
  private prunedOn = '';

  constructor(private readonly sqlite: SqliteDatabase) {
    super();
    const { counters } = sqlite;
    // One statement: the row is created, or incremented only while below the limit (a limit of 0
    // is refused before it). The VALUES form is several times faster than INSERT … SELECT.
    this.consume = counters
      .prepare(
        `INSERT INTO usage_counters (key_id, day, count) VALUES (?, ?, 1)
         ON CONFLICT(key_id, day) DO UPDATE SET count = count + 1 WHERE count < ?
         RETURNING count`,
      )
      .pluck();
    this.usage = counters
      .prepare('SELECT count FROM usage_counters WHERE key_id = ? AND day = ?')
      .pluck();
    this.pruneUsage = counters.prepare('DELETE FROM usage_counters WHERE day < ?');
    this.days = counters.prepare(
      'SELECT day, count FROM usage_counters WHERE key_id = ? AND day >= ? AND day <= ?',
    );
    // Run as BEGIN IMMEDIATE: the write lock is taken first, never upgraded from a read lock.
    this.countAll = counters.transaction((batch: PendingCount[]) =>
      batch.map((count) => this.countOne(count)),
    );
    this.pruneOldUsage(new Date().toISOString().slice(0, 10));
    // Counts already asked for are written, not dropped, when the store closes.
    sqlite.onClose(() => this.commitCounts());
  }

  /** Counters past the usage history's 90 days are of no use to anyone. */
  private pruneOldUsage(today: string): void {
    if (today <= this.prunedOn) return;
    this.prunedOn = today;
    this.pruneUsage.run(dayBefore(today, USAGE_KEEP_DAYS - 1));
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
    this.sqlite.afterCommit();
    batch.forEach((count, i) => count.resolve(results[i]));
  }

  private countOne({ keyId, day, limit }: PendingCount): QuotaResult {
    this.pruneOldUsage(day);
    const counted =
      limit !== null && limit <= 0
        ? undefined
        : (this.consume.get(keyId, day, limit ?? Number.MAX_SAFE_INTEGER) as number | undefined);
    if (counted !== undefined) return { allowed: true, used: counted };
    return { allowed: false, used: (this.usage.get(keyId, day) as number | undefined) ?? 0 };
  }

  getUsage(keyId: string, day: string): Promise<number> {
    return this.sqlite.run(() => (this.usage.get(keyId, day) as number | undefined) ?? 0);
  }

  getUsageDays(keyId: string, days: string[]): Promise<number[]> {
    if (!days.length) return Promise.resolve([]);
    const sorted = [...days].sort();
    return this.sqlite.run(() => {
      const rows = this.days.all(keyId, sorted[0], sorted[sorted.length - 1]) as {
        day: string;
        count: number;
      }[];
      const counts = new Map(rows.map((r) => [r.day, r.count]));
      return days.map((day) => counts.get(day) ?? 0);
    });
  }
}
