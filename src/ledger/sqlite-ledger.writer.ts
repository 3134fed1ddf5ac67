import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import {
  INSERT_LEDGER_ENTRY,
  LEDGER_MIGRATIONS,
  ledgerDayOfId,
  ledgerValues,
  type LedgerWrite,
} from './ledger-entry';

/**
 * The ledger's tables on the embedded store, made or brought up to date: `ledger_day(id)` (an
 * entry's UTC day) is what the migration that adds the day sums fills them from.
 */
export function ensureLedgerSchema(sqlite: SqliteDatabase): void {
  sqlite.db.function('ledger_day', { deterministic: true }, (id) => ledgerDayOfId(String(id)));
  sqlite.ensureSchema('ledger', LEDGER_MIGRATIONS);
}

/**
 * What writes the ledger on the embedded store: the usage store's counting step calls it inside
 * its own transaction (the counters connection's group commit), so that an entry, the day sum it
 * adds to and the counters it counts commit together, or none of them. It opens no transaction and
 * commits nothing of its own.
 */
export class SqliteLedgerWriter {
  private readonly insert: Database.Statement;
  private readonly addDay: Database.Statement;

  constructor(sqlite: SqliteDatabase) {
    ensureLedgerSchema(sqlite);
    this.insert = sqlite.counters.prepare(INSERT_LEDGER_ENTRY);
    this.addDay = sqlite.counters.prepare(
      `INSERT INTO ledger_days (day, subject_id, credits, entries) VALUES (?, ?, ?, ?)
       ON CONFLICT(day, subject_id) DO UPDATE SET credits = credits + excluded.credits,
         entries = entries + excluded.entries`,
    );
  }

  /**
   * The entries of one transaction (a group commit's charges, or a refund): each entry's row, then
   * once per subject and day what they add to its day sum (what doctor reconciles the counters
   * with). Runs in the caller's transaction, on the counters connection.
   */
  write(writes: readonly LedgerWrite[]): void {
    if (writes.length === 1) {
      const { entry, day } = writes[0];
      this.insert.run(...ledgerValues(entry));
      this.addDay.run(day, entry.subject.id, entry.credits, 1);
      return;
    }
    const days = new Map<
      string,
      [day: string, subject: string, credits: number, entries: number]
    >();
    for (const { entry, day } of writes) {
      this.insert.run(...ledgerValues(entry));
      const at = `${day} ${entry.subject.id}`;
      const sum = days.get(at);
      if (sum) {
        sum[2] += entry.credits;
        sum[3] += 1;
      } else days.set(at, [day, entry.subject.id, entry.credits, 1]);
    }
    for (const sum of days.values()) this.addDay.run(...sum);
  }
}
