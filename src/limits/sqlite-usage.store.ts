import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import { type LedgerWrite, SqliteLedgerWriter } from '../ledger';
import { usageHistoryWrites, type UsageHistoryWrites } from './sqlite-usage.history';
import { SqliteUsageRetention } from './sqlite-usage.retention';
import { type Tally, type ToolCount, USAGE_MIGRATIONS } from './sqlite-usage.schema';
import { decide } from './quota-decision';
import { DayUsage, QuotaCharge, QuotaResult, Refund, UsageStore } from './usage.store';

/** A quota count waiting for the next group commit (see `consumeQuota`). */
interface PendingCount {
  keyId: string;
  charge: QuotaCharge;
  resolve: (result: QuotaResult) => void;
  reject: (error: Error) => void;
}

/**
 * Usage counters in the embedded store, on the database's counters connection: a key's credits
 * per day (`usage_counters`), per month (`usage_months`) and per tool and day (`usage_by_tool`).
 */
export class SqliteUsageStore extends UsageStore {
  private readonly stmt: Record<string, Database.Statement>;
  private readonly history: UsageHistoryWrites;
  /** Counts asked for since the last group commit (see `consumeQuota`). */
  private pendingCounts: PendingCount[] = [];
  private readonly retention: SqliteUsageRetention;
  /** The ledger's writer: called in the transaction that counts (no write of the ledger's here). */
  private readonly ledger: SqliteLedgerWriter;

  constructor(private readonly sqlite: SqliteDatabase) {
    super();
    sqlite.ensureSchema('usage', USAGE_MIGRATIONS);
    this.ledger = new SqliteLedgerWriter(sqlite);
    const { counters } = sqlite;
    // A group commit's counts are decided in memory, under its write lock, from the counters read
    // once in it, and written once each at its end (see countBatch), in the VALUES form, which
    // SQLite runs without the subquery of an INSERT … SELECT.
    this.stmt = {
      setDay: counters.prepare(
        `INSERT INTO usage_counters (key_id, day, count) VALUES (?, ?, ?)
         ON CONFLICT(key_id, day) DO UPDATE SET count = excluded.count`,
      ),
      setMonth: counters.prepare(
        `INSERT INTO usage_months (key_id, month, credits) VALUES (?, ?, ?)
         ON CONFLICT(key_id, month) DO UPDATE SET credits = excluded.credits`,
      ),
      countTool: counters.prepare(
        `INSERT INTO usage_by_tool (key_id, day, tool, calls, credits) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(key_id, day, tool) DO UPDATE SET calls = calls + excluded.calls,
           credits = credits + excluded.credits`,
      ),
      refundDay: counters.prepare(
        'UPDATE usage_counters SET count = MAX(0, count - ?) WHERE key_id = ? AND day = ?',
      ),
      refundMonth: counters.prepare(
        'UPDATE usage_months SET credits = MAX(0, credits - ?) WHERE key_id = ? AND month = ?',
      ),
      refundTool: counters.prepare(
        `INSERT INTO usage_by_tool (key_id, day, tool, failed) VALUES (?, ?, ?, 1)
         ON CONFLICT(key_id, day, tool) DO UPDATE SET failed = failed + 1,
           credits = MAX(0, credits - ?)`,
      ),
      runSpent: counters
        .prepare('SELECT COALESCE(SUM(credits), 0) FROM run_spending WHERE run_id = ?')
        .pluck(),
      runSpending: counters.prepare(
        'SELECT tool, credits FROM run_spending WHERE run_id = ? AND credits > 0',
      ),
      countRun: counters.prepare(
        `INSERT INTO run_spending (run_id, tool, credits) VALUES (?, ?, ?)
         ON CONFLICT(run_id, tool) DO UPDATE SET credits = credits + excluded.credits`,
      ),
      refundRun: counters.prepare(
        'UPDATE run_spending SET credits = MAX(0, credits - ?) WHERE run_id = ? AND tool = ?',
      ),
      deleteRun: counters.prepare('DELETE FROM run_spending WHERE run_id = ?'),
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
    };
    this.history = usageHistoryWrites(counters);
    this.retention = new SqliteUsageRetention(sqlite);
    this.retention.prune(new Date().toISOString().slice(0, 10));
    // Counts already asked for are written, not dropped, when the store closes: they are in the
    // group commit, which the store commits before it closes.
  }

  /** Resolves once the prune of past usage under way, if any, has ended (SqliteUsageRetention). */
  pruned(): Promise<void> {
    return this.retention.pruned();
  }

  /**
   * Counts one call, in a group commit (SqliteDatabase.groupCommit): the counts asked for while the
   * event loop serves one round of I/O are written together, in one transaction, when that round
   * is done. Each count is still checked on its own, in order, so exactly the calls that fit are
   * allowed however many arrive at once and on however many instances; the commit, and the writes
   * of the counters (each day's, month's and tool's once, summed over the round), are shared. A
   * commit takes SQLite's locks and writes a WAL frame, which costs more than the rest of the count;
   * under load one commit serves many calls (docs/performance.md, "Why the hot path is written as it is").
   */
  consumeQuota(keyId: string, charge: QuotaCharge): Promise<QuotaResult> {
    return new Promise((resolve, reject) => {
      const first = this.pendingCounts.push({ keyId, charge, resolve, reject }) === 1;
      if (first) this.commitCounts();
    });
  }

  /** Joins the next group commit with the counts pending when it runs, and answers each. */
  private commitCounts(): void {
    let batch: PendingCount[] = [];
    let results: QuotaResult[] = [];
    this.sqlite
      .groupCommit(() => {
        batch = this.pendingCounts;
        this.pendingCounts = [];
        results = this.countBatch(batch);
      })
      .then(
        () => batch.forEach((count, i) => count.resolve(results[i])),
        (error: Error) => {
          // A commit that failed before its turn came leaves the counts pending: answered too.
          if (!batch.length) [batch, this.pendingCounts] = [this.pendingCounts, []];
          for (const count of batch) count.reject(error);
        },
      );
  }

  /**
   * Decides a group commit's counts, in order, and writes what they counted. It runs inside the
   * group commit's `BEGIN IMMEDIATE`: no other connection or process writes the counters until it ends,
   * so each counter read once here and counted on in memory is exact, as a conditional UPSERT per
   * call was, at one read and one write per key and period a round instead of one write per call.
   */
  private countBatch(batch: PendingCount[]): QuotaResult[] {
    const days = new Map<string, Tally>();
    const months = new Map<string, Tally>();
    const tools = new Map<string, ToolCount>();
    const runs = new Map<string, Tally>();
    const entries: LedgerWrite[] = [];
    const results = batch.map(({ keyId, charge }) => {
      this.retention.prune(charge.day);
      const day = this.tally(days, this.stmt.usage, keyId, charge.day);
      const month = this.tally(months, this.stmt.monthUsage, keyId, charge.month);
      const run = charge.run && this.runTally(runs, charge.run.id);
      const result = decide(charge, day, month, run);
      if (result.allowed) {
        if (charge.run) this.stmt.countRun.run(charge.run.id, charge.tool, charge.cost);
        if (charge.entry) entries.push({ entry: charge.entry, day: charge.day });
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
    this.ledger.write(entries);
    for (const { keyId, period, read, used } of days.values()) {
      if (used !== read) this.stmt.setDay.run(keyId, period, used);
    }
    for (const { keyId, period, read, used } of months.values()) {
      if (used !== read) this.stmt.setMonth.run(keyId, period, used);
    }
    for (const { keyId, day, tool, calls, credits } of tools.values()) {
      this.stmt.countTool.run(keyId, day, tool, calls, credits);
    }
    return results;
  }

  /** What a run has spent, in this group commit: read at its first use. */
  private runTally(tallies: Map<string, Tally>, runId: string): Tally {
    let tally = tallies.get(runId);
    if (!tally) {
      const spent = this.stmt.runSpent.get(runId) as number;
      tally = { keyId: runId, period: '', read: spent, used: spent };
      tallies.set(runId, tally);
    }
    return tally;
  }

  /** A key's counter of a day or month in this group commit: read at its first use. */
  private tally(
    tallies: Map<string, Tally>,
    read: Database.Statement,
    keyId: string,
    period: string,
  ): Tally {
    const at = `${keyId} ${period}`;
    let tally = tallies.get(at);
    if (!tally) {
      const used = (read.get(keyId, period) as number | undefined) ?? 0;
      tally = { keyId, period, read: used, used };
      tallies.set(at, tally);
    }
    return tally;
  }

  countFailure(keyId: string, day: string, tool: string): Promise<void> {
    return this.sqlite.attempt(() => {
      this.stmt.countFailure.run(keyId, day, tool);
    });
  }

  /** In a group commit, like the counts it gives back, with its ledger entry. */
  refund(keyId: string, { day, month, tool, credits, runId, entry }: Refund): Promise<void> {
    return this.sqlite.groupCommit(() => {
      this.stmt.refundDay.run(credits, keyId, day);
      this.stmt.refundMonth.run(credits, keyId, month);
      this.stmt.refundTool.run(keyId, day, tool, credits);
      if (runId) this.stmt.refundRun.run(credits, runId, tool);
      if (entry) this.ledger.write([{ entry, day }]);
    });
  }

  getRunSpending(_subjectId: string, runId: string): Promise<Record<string, number>> {
    return this.sqlite.attempt(() => {
      const rows = this.stmt.runSpending.all(runId) as { tool: string; credits: number }[];
      return Object.fromEntries(rows.map((row) => [row.tool, row.credits]));
    });
  }

  deleteRunSpending(_subjectId: string, runId: string): Promise<void> {
    return this.sqlite.groupCommit(() => void this.stmt.deleteRun.run(runId));
  }

  getUsage(keyId: string, day: string): Promise<number> {
    return this.sqlite.attempt(() => (this.stmt.usage.get(keyId, day) as number | undefined) ?? 0);
  }

  getMonthUsage(keyId: string, month: string): Promise<number> {
    return this.sqlite.attempt(
      () => (this.stmt.monthUsage.get(keyId, month) as number | undefined) ?? 0,
    );
  }

  /**
   * In a group commit: the counts pending now are in it before the move (their commit was asked
   * for with the first of them), so they are `from`'s too.
   */
  moveUsage(from: string, to: string): Promise<void> {
    return this.sqlite.groupCommit(() => this.history.move(from, to));
  }

  deleteUsage(keyId: string): Promise<void> {
    return this.sqlite.groupCommit(() => this.history.delete(keyId));
  }

  getUsageDays(keyId: string, days: string[]): Promise<DayUsage[]> {
    if (!days.length) return Promise.resolve([]);
    return this.sqlite.attempt(() => this.history.days(keyId, days));
  }
}
