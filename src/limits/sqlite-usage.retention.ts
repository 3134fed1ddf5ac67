import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import { dayBefore, USAGE_KEEP_DAYS } from './usage.store';

/** Rows of past usage the prune deletes in one group commit. */
const PRUNE_SLICE = 1_000;

/**
 * Counters past the usage history's 90 days (and months before this one) are of no use to anyone:
 * once a new UTC day is seen (at start-up, at the first count after midnight), they are deleted
 * `PRUNE_SLICE` rows a group commit, each slice a seek on the period's index, so that the counts
 * of each round wait for one slice at most, never for the whole prune.
 */
export class SqliteUsageRetention {
  private readonly slices: { statement: Database.Statement; period: 'day' | 'month' }[];
  /** The day whose counters were last pruned: pruning runs once per new UTC day seen. */
  private prunedOn = '';
  /** The prune under way, or the last one, ended. */
  private pruning: Promise<unknown> = Promise.resolve();

  constructor(private readonly sqlite: SqliteDatabase) {
    const slice = (table: string, key: string, period: 'day' | 'month') => ({
      statement: sqlite.counters.prepare(
        `DELETE FROM ${table} WHERE (${key}) IN
           (SELECT ${key} FROM ${table} WHERE ${period} < ? LIMIT ${PRUNE_SLICE})`,
      ),
      period,
    });
    this.slices = [
      slice('usage_counters', 'key_id, day', 'day'),
      slice('usage_by_tool', 'key_id, day, tool', 'day'),
      slice('usage_months', 'key_id, month', 'month'),
    ];
  }

  /** Starts the prune of what `today` no longer keeps, unless a day as late was seen before. */
  prune(today: string): void {
    if (today <= this.prunedOn) return;
    this.prunedOn = today;
    const before = { day: dayBefore(today, USAGE_KEEP_DAYS - 1), month: today.slice(0, 7) };
    this.pruning = this.pruning
      .then(async () => {
        for (const { statement, period } of this.slices) {
          const slice = () => statement.run(before[period]).changes;
          while ((await this.sqlite.groupCommit(slice)) === PRUNE_SLICE);
        }
      })
      // A prune that fails (the store closing, the disk) is tried again at the next count.
      .catch(() => (this.prunedOn = ''));
  }

  /** Resolves once the prune under way, if any, has ended. */
  async pruned(): Promise<void> {
    await this.pruning;
  }
}
