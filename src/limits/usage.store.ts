import type { NewLedgerEntry } from '../ledger';

/** Usage counters are kept this many days (the usage history reaches back as far). */
export const USAGE_KEEP_DAYS = 90;

/** The UTC day `days` before `day` (both `YYYY-MM-DD`). */
export function dayBefore(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * One call's charge against its key's counters: `cost` credits on the UTC day (within the daily
 * limit) and, when a monthly limit applies, on the UTC calendar month (within that); the call counted
 * once for its tool.
 */
export interface QuotaCharge {
  /** `YYYY-MM-DD`. */
  day: string;
  /** null: no daily limit (counted all the same). */
  dailyLimit: number | null;
  /** `YYYY-MM`. */
  month: string;
  /** null: no monthly limit, and the month is not counted. */
  monthlyLimit: number | null;
  cost: number;
  tool: string;
  /** A run's token calls: the run, and its budget, which the call must fit as well. */
  run?: RunBudget;
  /** The ledger's entry of the call, written with its count (absent: none, as in the stores' specs). */
  entry?: NewLedgerEntry;
}

/** A run the call is made in: its budget, against what the run has spent. */
export interface RunBudget {
  id: string;
  budget: number;
}

export interface QuotaResult {
  /** Whether this call was counted (false: it needed more than remained; nothing was counted). */
  allowed: boolean;
  /** Credits counted for the key on that day, this call's included when allowed. */
  used: number;
  /** Credits counted for the key in that month (null when no monthly limit applies). */
  monthUsed: number | null;
  /** Which limit refused it: the month first, then the day, then the run's budget. */
  refused?: 'daily' | 'monthly' | 'run';
  /** What the call's run has spent, this call's included when allowed (a run's call only). */
  runSpent?: number;
}

/**
 * A counted call's credits given back (a call accepted that never ran): off the day and the month
 * it was charged on, and off its tool's credits that day, where it counts as failed.
 */
export interface Refund {
  /** `YYYY-MM-DD`: the day it was charged on. */
  day: string;
  /** `YYYY-MM`: the month it was charged in. */
  month: string;
  tool: string;
  credits: number;
  /** The run it was charged to, which gets the credits back too. */
  runId?: string | null;
  /** The ledger's refund entry (negative credits), written with the refund. */
  entry?: NewLedgerEntry;
}

/** What a key spent on one tool on one day. */
export interface ToolUsage {
  calls: number;
  credits: number;
  /** Calls that ended in a 5xx (a 504 among them). */
  failed: number;
}

/** What a key spent on one day: credits in all, and per tool. */
export interface DayUsage {
  used: number;
  byTool: Record<string, ToolUsage>;
}

/**
 * Credits counted per key: per UTC day (the daily quota and the usage history, per tool as well)
 * and per UTC month (the monthly limit, counted whether or not one applies).
 */
export abstract class UsageStore {
  /**
   * Counts one call unless it needs more than remains of the day's or the month's limit: one atomic
   * step, so with L credits left exactly the calls that fit are allowed however many arrive at
   * once, and nothing is ever partly charged.
   */
  abstract consumeQuota(keyId: string, charge: QuotaCharge): Promise<QuotaResult>;
  /** A counted call of `tool` ended in a 5xx: its day's `failed` count. */
  abstract countFailure(keyId: string, day: string, tool: string): Promise<void>;
  /**
   * Gives a counted call's credits back (Refund) and counts it failed, in one atomic step: the
   * day's and month's credits (never below 0), and the tool's credits and `failed` that day.
   */
  abstract refund(keyId: string, refund: Refund): Promise<void>;
  abstract getUsage(keyId: string, day: string): Promise<number>;
  abstract getMonthUsage(keyId: string, month: string): Promise<number>;
  /** What the key spent on each of the given UTC days (0, and no tools, for a day without calls). */
  abstract getUsageDays(keyId: string, days: string[]): Promise<DayUsage[]>;
  /**
   * Adds every counter of `from` (days, months, tools, within the history kept up to `today`) to
   * those of `to`, and deletes `from`'s: one caller's usage recorded under two ids becomes one.
   * Each counter is taken from `from` at once, so it is never added twice.
   */
  abstract moveUsage(from: string, to: string, today: string): Promise<void>;
  /** Deletes every counter of the key (its usage history, up to `today`). */
  abstract deleteUsage(keyId: string, today: string): Promise<void>;
  /** What a run of the subject has spent, per tool (none: `{}`). */
  abstract getRunSpending(subjectId: string, runId: string): Promise<Record<string, number>>;
  /** Forgets what a run spent (the run itself is gone). */
  abstract deleteRunSpending(subjectId: string, runId: string): Promise<void>;
}

/** The UTC days of the usage history up to `today`, and the months they fall in. */
export function historyPeriods(today: string): { days: string[]; months: string[] } {
  const days = Array.from({ length: USAGE_KEEP_DAYS + 1 }, (_, i) => dayBefore(today, i));
  return { days, months: [...new Set(days.map((day) => day.slice(0, 7)))] };
}
