import type Database from 'better-sqlite3';
import { storeFailure, type SqliteDatabase } from '../sqlite/sqlite.database';
import {
  dayBefore,
  DayUsage,
  QuotaCharge,
  QuotaResult,
  USAGE_KEEP_DAYS,
  UsageStore,
} from './usage.store';

/** A quota count waiting for the next group commit (see `consumeQuota`). */
interface PendingCount {
  keyId: string;
  charge: QuotaCharge;
  resolve: (result: QuotaResult) => void;
  reject: (error: Error) => void;
}

/** The tables of credits added after the first schema (`usage_counters` is the day's credits). */
const MIGRATIONS = [
  `CREATE TABLE usage_months (
     key_id TEXT NOT NULL,
     month TEXT NOT NULL,
     credits INTEGER NOT NULL,
     PRIMARY KEY (key_id, month)
   ) WITHOUT ROWID;
   CREATE TABLE usage_by_tool (
     key_id TEXT NOT NULL,
     day TEXT NOT NULL,
     tool TEXT NOT NULL,
     calls INTEGER NOT NULL DEFAULT 0,
     credits INTEGER NOT NULL DEFAULT 0,
     failed INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (key_id, day, tool)
   ) WITHOUT ROWID;`,
];

/** A key's calls of a tool on a day, summed over one group commit. */
interface ToolCount {
  keyId: string;
  day: string;
  tool: string;
  calls: number;
  credits: number;
}

/**
 * Usage counters in the embedded store, on the database's counters connection: a key's credits
 * per day (`usage_counters`), per month where a monthly limit applies (`usage_months`) and per
 * tool and day (`usage_by_tool`).
 */
export class SqliteUsageStore extends UsageStore {
  private readonly stmt: Record<string, Database.Statement>;
  private readonly countAll: Database.Transaction<(batch: PendingCount[]) => QuotaResult[]>;
  /** Counts asked for since the last group commit (see `consumeQuota`). */
  private pendingCounts: PendingCount[] = [];
  /** The day whose counters were last pruned: pruning runs once per new UTC day seen. */
  private prunedOn = '';

  constructor(private readonly sqlite: SqliteDatabase) {
    super();
    sqlite.ensureSchema('usage', MIGRATIONS);
    const { counters } = sqlite;
    // One statement each: the row is created, or grown only while it stays within the limit (a
    // first charge larger than the limit is refused before it). The VALUES form is several times
    // faster than INSERT … SELECT.
    this.stmt = {
      chargeDay: counters
        .prepare(
          `INSERT INTO usage_counters (key_id, day, count) VALUES (?, ?, @cost)
           ON CONFLICT(key_id, day) DO UPDATE SET count = count + @cost WHERE count + @cost <= @limit
           RETURNING count`,
        )
        .pluck(),
      chargeMonth: counters
        .prepare(
          `INSERT INTO usage_months (key_id, month, credits) VALUES (?, ?, @cost)
           ON CONFLICT(key_id, month) DO UPDATE SET credits = credits + @cost
             WHERE credits + @cost <= @limit
           RETURNING credits`,
        )
        .pluck(),
      refundMonth: counters.prepare(
        'UPDATE usage_months SET credits = credits - ? WHERE key_id = ? AND month = ?',
      ),
      countTool: counters.prepare(
        `INSERT INTO usage_by_tool (key_id, day, tool, calls, credits) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(key_id, day, tool) DO UPDATE SET calls = calls + excluded.calls,
           credits = credits + excluded.credits`,
      ),
      countFailure: counters.prepare(
        `INSERT INTO usage_by_tool (key_id, day, tool, failed) VALUES (?, ?, ?, 1)
         ON CONFLICT(key_id, day, tool) DO UPDATE SET failed = failed + 1`,
      ),
      usage: counters
        .prepare('SELECT count FROM usage_counters WHERE key_id = ? AND day = ?')
        .pluck(),
      monthUsage: counters
        .prepare('SELECT credits FROM usage_months WHERE key_id = ? AND month = ?')
        .pluck(),
      pruneUsage: counters.prepare('DELETE FROM usage_counters WHERE day < ?'),
      pruneTools: counters.prepare('DELETE FROM usage_by_tool WHERE day < ?'),
      pruneMonths: counters.prepare('DELETE FROM usage_months WHERE month < ?'),
      days: counters.prepare(
        'SELECT day, count FROM usage_counters WHERE key_id = ? AND day >= ? AND day <= ?',
      ),
      toolDays: counters.prepare(
        `SELECT day, tool, calls, credits, failed FROM usage_by_tool
         WHERE key_id = ? AND day >= ? AND day <= ?`,
      ),
    };
    // Run as BEGIN IMMEDIATE: the write lock is taken first, never upgraded from a read lock.
    this.countAll = counters.transaction((batch: PendingCount[]) => this.countBatch(batch));
    this.pruneOldUsage(new Date().toISOString().slice(0, 10));
    // Counts already asked for are written, not dropped, when the store closes.
    sqlite.onClose(() => this.commitCounts());
  }

  /** Counters past the usage history's 90 days (and months before it) are of no use to anyone. */
  private pruneOldUsage(today: string): void {
    if (today <= this.prunedOn) return;
    this.prunedOn = today;
    const oldest = dayBefore(today, USAGE_KEEP_DAYS - 1);
    this.stmt.pruneUsage.run(oldest);
    this.stmt.pruneTools.run(oldest);
    this.stmt.pruneMonths.run(today.slice(0, 7));
  }

  /**
   * Counts one call, in a group commit: the counts asked for while the event loop serves one round
   * of I/O are written together, in one transaction, when that round is done (`setImmediate`).
   * Each count is still checked and written on its own, in order, so exactly the calls that fit
   * are allowed however many arrive at once and on however many instances; only the commit, and
   * the per-tool counts (summed over the round), are shared. A commit takes SQLite's locks, writes
   * a WAL frame and costs ~17 µs on a busy process, more than the rest of the count; under load one
   * commit serves tens of calls (docs/performance.md).
   */
  consumeQuota(keyId: string, charge: QuotaCharge): Promise<QuotaResult> {
    return new Promise((resolve, reject) => {
      const first = this.pendingCounts.push({ keyId, charge, resolve, reject }) === 1;
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
      results = this.countAll.immediate(batch);
    } catch (error) {
      const failure = storeFailure(error);
      for (const count of batch) count.reject(failure);
      return;
    }
    this.sqlite.afterCommit();
    batch.forEach((count, i) => count.resolve(results[i]));
  }

  private countBatch(batch: PendingCount[]): QuotaResult[] {
    const tools = new Map<string, ToolCount>();
    const results = batch.map(({ keyId, charge }) => {
      const result = this.countOne(keyId, charge);
      if (result.allowed) {
        const at = `${keyId} ${charge.day} ${charge.tool}`;
        const count = tools.get(at) ?? {
          keyId,
          day: charge.day,
          tool: charge.tool,
          calls: 0,
          credits: 0,
        };
        count.calls += 1;
        count.credits += charge.cost;
        tools.set(at, count);
      }
      return result;
    });
    for (const { keyId, day, tool, calls, credits } of tools.values()) {
      this.stmt.countTool.run(keyId, day, tool, calls, credits);
    }
    return results;
  }

  /** The month first (its refusal wins when both would refuse), then the day; all or nothing. */
  private countOne(keyId: string, charge: QuotaCharge): QuotaResult {
    const { day, month, cost, dailyLimit, monthlyLimit } = charge;
    this.pruneOldUsage(day);
    let monthUsed: number | null = null;
    if (monthlyLimit !== null) {
      const counted =
        cost > monthlyLimit
          ? undefined
          : (this.stmt.chargeMonth.get(keyId, month, { cost, limit: monthlyLimit }) as
              number | undefined);
      if (counted === undefined) {
        return {
          allowed: false,
          used: this.dayUsed(keyId, day),
          monthUsed: this.monthUsed(keyId, month),
          refused: 'monthly',
        };
      }
      monthUsed = counted;
    }
    const limit = dailyLimit ?? Number.MAX_SAFE_INTEGER;
    const used =
      cost > limit
        ? undefined
        : (this.stmt.chargeDay.get(keyId, day, { cost, limit }) as number | undefined);
    if (used !== undefined) return { allowed: true, used, monthUsed };
    if (monthUsed !== null) {
      this.stmt.refundMonth.run(cost, keyId, month);
      monthUsed -= cost;
    }
    return { allowed: false, used: this.dayUsed(keyId, day), monthUsed, refused: 'daily' };
  }

  private dayUsed(keyId: string, day: string): number {
    return (this.stmt.usage.get(keyId, day) as number | undefined) ?? 0;
  }

  private monthUsed(keyId: string, month: string): number {
    return (this.stmt.monthUsage.get(keyId, month) as number | undefined) ?? 0;
  }

  countFailure(keyId: string, day: string, tool: string): Promise<void> {
    return this.sqlite.run(() => {
      this.stmt.countFailure.run(keyId, day, tool);
    });
  }

  getUsage(keyId: string, day: string): Promise<number> {
    return this.sqlite.run(() => this.dayUsed(keyId, day));
  }

  getMonthUsage(keyId: string, month: string): Promise<number> {
    return this.sqlite.run(() => this.monthUsed(keyId, month));
  }

  getUsageDays(keyId: string, days: string[]): Promise<DayUsage[]> {
    if (!days.length) return Promise.resolve([]);
    const sorted = [...days].sort();
    const [first, last] = [sorted[0], sorted[sorted.length - 1]];
    return this.sqlite.run(() => {
      const totals = new Map(
        (this.stmt.days.all(keyId, first, last) as { day: string; count: number }[]).map((r) => [
          r.day,
          r.count,
        ]),
      );
      const byDay = new Map<string, DayUsage['byTool']>();
      const rows = this.stmt.toolDays.all(keyId, first, last) as ({
        day: string;
        tool: string;
      } & DayUsage['byTool'][string])[];
      for (const { day, tool, calls, credits, failed } of rows) {
        const tools = byDay.get(day) ?? {};
        tools[tool] = { calls, credits, failed };
        byDay.set(day, tools);
      }
      return days.map((day) => ({ used: totals.get(day) ?? 0, byTool: byDay.get(day) ?? {} }));
    });
  }
}
