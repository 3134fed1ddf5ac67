import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../kernel/store/sqlite/sqlite.database';
import { entryOfRow, ledgerDayOfId, ledgerIdFrom, LedgerEntry } from './ledger-entry';
import { LedgerDaySums, LedgerQuery, LedgerStore, LedgerSums } from './ledger.store';
import { ensureLedgerSchema } from './sqlite-ledger.writer';

/** The ledger's table in the embedded store, read by id (time) ranges and its indexes. */
export class SqliteLedgerStore extends LedgerStore {
  private readonly pages = new Map<string, Database.Statement>();
  private readonly stmt: Record<string, Database.Statement>;

  constructor(private readonly sqlite: SqliteDatabase) {
    super();
    ensureLedgerSchema(sqlite);
    const { db } = sqlite;
    this.stmt = {
      // A write, in the counters connection's group commit (where the entries are written).
      purge: sqlite.counters.prepare(
        `DELETE FROM ledger_entries WHERE id IN
           (SELECT id FROM ledger_entries WHERE id < ? ORDER BY id LIMIT ?)`,
      ),
      purgeDays: sqlite.counters.prepare('DELETE FROM ledger_days WHERE day < ?'),
      daySum: db.prepare(
        'SELECT credits, entries FROM ledger_days WHERE day = ? AND subject_id = ?',
      ),
      active: db
        .prepare(
          `SELECT DISTINCT subject_id FROM ledger_days WHERE day >= ? AND day <= ?
           ORDER BY subject_id LIMIT ?`,
        )
        .pluck(),
      activeCount: db
        .prepare('SELECT COUNT(DISTINCT subject_id) FROM ledger_days WHERE day >= ? AND day <= ?')
        .pluck(),
      sums: db.prepare(
        `SELECT COUNT(*) FILTER (WHERE kind = 'charge') AS charges,
           COALESCE(SUM(credits), 0) AS credits
         FROM ledger_entries WHERE subject_id = ? AND id >= ? AND id < ?`,
      ),
      subjects: db
        .prepare('SELECT DISTINCT subject_id FROM ledger_entries WHERE id >= ? AND id < ?')
        .pluck(),
    };
  }

  page(query: LedgerQuery, limit: number): Promise<LedgerEntry[]> {
    const where = ['id >= @from', 'id < @to'];
    if (query.after !== undefined) where.push('id > @after');
    if (query.subjectId !== undefined) where.push('subject_id = @subjectId');
    if (query.externalId !== undefined) where.push('external_id = @externalId');
    if (query.runId !== undefined) where.push('run_id = @runId');
    if (query.tool !== undefined) where.push('tool = @tool');
    const sql = `SELECT * FROM ledger_entries WHERE ${where.join(' AND ')} ORDER BY id LIMIT @limit`;
    let statement = this.pages.get(sql);
    if (!statement) this.pages.set(sql, (statement = this.sqlite.db.prepare(sql)));
    const prepared = statement;
    const values: Record<string, string | number> = {
      from: ledgerIdFrom(query.fromMs),
      to: ledgerIdFrom(query.toMs),
      limit,
    };
    for (const name of ['after', 'subjectId', 'externalId', 'runId', 'tool'] as const) {
      const value = query[name];
      if (value !== undefined) values[name] = value;
    }
    return this.sqlite.attempt(() =>
      (prepared.all(values) as Parameters<typeof entryOfRow>[0][]).map(entryOfRow),
    );
  }

  /** The entries, and the day sums of the days before the first day kept. */
  purge(beforeMs: number, limit: number): Promise<number> {
    return this.sqlite.groupCommit(() => {
      this.stmt.purgeDays.run(ledgerDayOfId(ledgerIdFrom(beforeMs)));
      return this.stmt.purge.run(ledgerIdFrom(beforeMs), limit).changes;
    });
  }

  /** The days are a range (their first and last). */
  activeSubjects(days: string[], limit: number): Promise<{ subjects: string[]; total: number }> {
    const [first, last] = [days.reduce(earliest), days.reduce(latest)];
    return this.sqlite.attempt(() => ({
      subjects: this.stmt.active.all(first, last, limit) as string[],
      total: this.stmt.activeCount.get(first, last) as number,
    }));
  }

  daySums(subjectId: string, days: string[]): Promise<LedgerDaySums[]> {
    return this.sqlite.attempt(() =>
      days.map((day) => {
        const row = this.stmt.daySum.get(day, subjectId) as
          { credits: number; entries: number } | undefined;
        return { day, credits: row?.credits ?? 0, entries: row?.entries ?? 0, unindexed: 0 };
      }),
    );
  }

  indexMissing(): Promise<number> {
    return Promise.resolve(0);
  }

  sums(subjectId: string, fromMs: number, toMs: number): Promise<LedgerSums> {
    return this.sqlite.attempt(
      () => this.stmt.sums.get(subjectId, ledgerIdFrom(fromMs), ledgerIdFrom(toMs)) as LedgerSums,
    );
  }

  subjects(fromMs: number, toMs: number): Promise<string[]> {
    return this.sqlite.attempt(
      () => this.stmt.subjects.all(ledgerIdFrom(fromMs), ledgerIdFrom(toMs)) as string[],
    );
  }

  unindexed(): Promise<number> {
    return Promise.resolve(0);
  }
}

const earliest = (a: string, b: string) => (a < b ? a : b);
const latest = (a: string, b: string) => (a > b ? a : b);
