import type Database from 'better-sqlite3';

/** Each table of counters: its period columns, its counts, how two rows of a period add up. */
const USAGE_TABLES = [
  {
    table: 'usage_counters',
    period: 'day',
    counts: 'count',
    sum: 'count = count + excluded.count',
  },
  {
    table: 'usage_months',
    period: 'month',
    counts: 'credits',
    sum: 'credits = credits + excluded.credits',
  },
  {
    table: 'usage_by_tool',
    period: 'day, tool',
    counts: 'calls, credits, failed',
    sum: `calls = calls + excluded.calls, credits = credits + excluded.credits,
          failed = failed + excluded.failed`,
  },
];

/** A key's whole usage history in one transaction: moved onto another key, or deleted. */
export interface UsageHistoryWrites {
  /** Adds every counter of `from` to `to`'s, then deletes `from`'s. */
  move: Database.Transaction<(from: string, to: string) => void>;
  delete: Database.Transaction<(keyId: string) => void>;
}

export function usageHistoryWrites(counters: Database.Database): UsageHistoryWrites {
  const moves = USAGE_TABLES.map(({ table, period, counts, sum }) =>
    counters.prepare(
      `INSERT INTO ${table} (key_id, ${period}, ${counts})
       SELECT @to, ${period}, ${counts} FROM ${table} WHERE key_id = @from
       ON CONFLICT (key_id, ${period}) DO UPDATE SET ${sum}`,
    ),
  );
  const deletions = USAGE_TABLES.map(({ table }) =>
    counters.prepare(`DELETE FROM ${table} WHERE key_id = ?`),
  );
  return {
    move: counters.transaction((from: string, to: string) => {
      for (const move of moves) move.run({ from, to });
      for (const deletion of deletions) deletion.run(from);
    }),
    delete: counters.transaction((keyId: string) => {
      for (const deletion of deletions) deletion.run(keyId);
    }),
  };
}
