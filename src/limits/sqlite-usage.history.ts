import type { DayUsage } from './usage.store';
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

/**
 * A key's whole usage history in one transaction: moved onto another key, or deleted; and read,
 * the given days' credits and their tools'.
 */
export interface UsageHistoryWrites {
  /** Adds every counter of `from` to `to`'s, then deletes `from`'s. */
  move: Database.Transaction<(from: string, to: string) => void>;
  delete: Database.Transaction<(keyId: string) => void>;
  /** What the key spent on each of `days` (at least one), per tool. */
  days: (keyId: string, days: string[]) => DayUsage[];
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
  const totals = counters.prepare(
    'SELECT day, count FROM usage_counters WHERE key_id = ? AND day >= ? AND day <= ?',
  );
  const toolDays = counters.prepare(
    `SELECT day, tool, calls, credits, failed FROM usage_by_tool
     WHERE key_id = ? AND day >= ? AND day <= ?`,
  );
  return {
    days: (keyId, days) => {
      const sorted = [...days].sort();
      const [first, last] = [sorted[0], sorted[sorted.length - 1]];
      const used = new Map(
        (totals.all(keyId, first, last) as { day: string; count: number }[]).map((r) => [
          r.day,
          r.count,
        ]),
      );
      const byDay = new Map<string, DayUsage['byTool']>();
      const rows = toolDays.all(keyId, first, last) as ({
        day: string;
        tool: string;
      } & DayUsage['byTool'][string])[];
      for (const { day, tool, calls, credits, failed } of rows) {
        const tools = byDay.get(day) ?? {};
        tools[tool] = { calls, credits, failed };
        byDay.set(day, tools);
      }
      return days.map((day) => ({ used: used.get(day) ?? 0, byTool: byDay.get(day) ?? {} }));
    },
    move: counters.transaction((from: string, to: string) => {
      for (const move of moves) move.run({ from, to });
      for (const deletion of deletions) deletion.run(from);
    }),
    delete: counters.transaction((keyId: string) => {
      for (const deletion of deletions) deletion.run(keyId);
    }),
  };
}
