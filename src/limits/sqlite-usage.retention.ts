import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import { dayBefore, USAGE_KEEP_DAYS } from './usage.store';

/** Keys whose past usage the prune deletes in one group commit. */
const KEYS_A_SLICE = 100;

/** One table of counters: the next keys after a cursor, and the delete of their past rows. */
interface Slicer {
  keys: Database.Statement;
  delete: Database.Statement;
  period: 'day' | 'month';
}

/**
 * Counters past the usage history's 90 days (and months before this one) are of no use to anyone:
 * once a new UTC day is seen (at start-up, at the first count after midnight), they are deleted
 * `KEYS_A_SLICE` keys a group commit, walking each table's primary key (key, then period), so that
 * the counts of each round wait for one slice at most, never for the whole prune. No index on the
 * period: it would take as many bytes again as the counters, and a page more to write for each
 * key's first call of a day. The day pruned is written in the file once the walk is done: a
 * restart, or another process on the file, does not walk every key again that day.
 */
export class SqliteUsageRetention {
  private readonly slicers: Slicer[];
  private readonly prunedDay: Database.Statement;
  private readonly markPruned: Database.Statement;
  /** The day whose counters were last pruned: pruning runs once per new UTC day seen. */
  private prunedOn = '';
  /** The prune under way, or the last one, ended. */
  private pruning: Promise<unknown> = Promise.resolve();

  constructor(private readonly sqlite: SqliteDatabase) {
    const slicer = (table: string, period: 'day' | 'month'): Slicer => ({
      keys: sqlite.counters
        .prepare(
          `SELECT DISTINCT key_id FROM ${table} WHERE key_id > ? ORDER BY key_id
           LIMIT ${KEYS_A_SLICE}`,
        )
        .pluck(),
      delete: sqlite.counters.prepare(
        `DELETE FROM ${table} WHERE key_id >= ? AND key_id <= ? AND ${period} < ?`,
      ),
      period,
    });
    this.prunedDay = sqlite.counters
      .prepare('SELECT pruned_on FROM usage_retention WHERE id = 1')
      .pluck();
    this.markPruned = sqlite.counters.prepare(
      `INSERT INTO usage_retention (id, pruned_on) VALUES (1, ?)
       ON CONFLICT(id) DO UPDATE SET pruned_on = MAX(pruned_on, excluded.pruned_on)`,
    );
    this.slicers = [
      slicer('usage_counters', 'day'),
      slicer('usage_by_tool', 'day'),
      slicer('usage_months', 'month'),
    ];
  }

  /** Starts the prune of what `today` no longer keeps, unless a day as late was pruned before. */
  prune(today: string): void {
    if (today <= this.prunedOn) return;
    const stored = (this.prunedDay.get() as string | undefined) ?? '';
    if (today <= stored) {
      this.prunedOn = stored;
      return;
    }
    this.prunedOn = today;
    const before = { day: dayBefore(today, USAGE_KEEP_DAYS - 1), month: today.slice(0, 7) };
    this.pruning = this.pruning
      .then(async () => {
        for (const slicer of this.slicers) {
          let after: string | undefined = '';
          while (after !== undefined) {
            const from: string = after;
            after = await this.sqlite.groupCommit(() => this.slice(slicer, from, before));
          }
        }
        await this.sqlite.groupCommit(() => this.markPruned.run(today));
      })
      // A prune that fails (the store closing, the disk) is tried again at the next count.
      .catch(() => (this.prunedOn = ''));
  }

  /** Deletes the past rows of the keys after `after`: the last key done, undefined at the end. */
  private slice(
    { keys, delete: prune, period }: Slicer,
    after: string,
    before: Record<Slicer['period'], string>,
  ): string | undefined {
    const next = keys.all(after) as string[];
    if (next.length === 0) return undefined;
    prune.run(next[0], next[next.length - 1], before[period]);
    return next[next.length - 1];
  }

  /** Resolves once the prune under way, if any, has ended. */
  async pruned(): Promise<void> {
    await this.pruning;
  }
}
