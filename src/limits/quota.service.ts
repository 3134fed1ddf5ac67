import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../kernel/errors/api-error';
import { Settings, SETTINGS } from '../kernel/settings/settings';
import { QuotaCharge, QuotaResult, ToolUsage, UsageStore } from './usage.store';
import { Clock, nextUtcMidnight, utcDay } from '../kernel/common/clock';
import { effectiveLimits, Payer, toolCost } from './key-limits';

/** Where a key stands against its monthly limit (only where one applies). */
export interface MonthlyState {
  limit: number;
  used: number;
  remaining: number;
  resetsAt: Date;
  /** Whole seconds until the next UTC month. */
  resetSeconds: number;
}

/** Where a key stands against its daily limit (credits), and its monthly one where it has one. */
export interface QuotaState {
  limit: number | null;
  used: number;
  remaining: number | null;
  resetsAt: Date;
  /** Whole seconds until the next UTC midnight. */
  resetSeconds: number;
  /** What the call just counted cost (absent in a usage view). */
  cost?: number;
  monthly: MonthlyState | null;
}

/** What a key spent on one UTC day: credits in all, and per tool. */
export interface DailyUsage {
  date: string;
  used: number;
  by_tool: Record<string, ToolUsage>;
}

/** The usage history reaches back this many UTC days, today included. */
export const HISTORY_MAX_DAYS = 90;

/** The first instant of the UTC month after the one `at` falls in. */
function nextUtcMonth(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

const secondsUntil = (until: Date, now: Date) =>
  Math.ceil((until.getTime() - now.getTime()) / 1000);

/**
 * Credits per key: a call costs its tool's cost (the plan's price for it where the plan sets one),
 * counted against the UTC day's limit and, where one applies, the UTC calendar month's, atomically
 * in the store (UsageStore): nothing is partly charged, and the call that does not fit is 402.
 */
@Injectable()
export class QuotaService {
  constructor(
    private readonly store: UsageStore,
    private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /** What a call of `tool` made now costs the key, and against which limits. */
  charge(key: Payer, tool: string, declaredCost: number): QuotaCharge {
    const now = this.clock.now();
    const limits = effectiveLimits(key, this.settings);
    const day = utcDay(now);
    return {
      day,
      dailyLimit: limits.daily_limit,
      month: day.slice(0, 7),
      monthlyLimit: limits.monthly_limit,
      cost: toolCost(this.settings, key.plan, tool, declaredCost),
      tool,
    };
  }

  /** Charges a call (UsageStore.consumeQuota) and settles it: its state, or the 402. */
  async consume(key: Payer, charge: QuotaCharge): Promise<QuotaState> {
    return this.settle(charge, await this.store.consumeQuota(key.id, charge));
  }

  /**
   * A call charged (here or with its rate): its state, or the 402 when refused, the monthly one
   * when the month refused it.
   */
  settle(charge: QuotaCharge, result: QuotaResult): QuotaState {
    const state = this.state(charge, result.used, result.monthUsed);
    if (result.allowed) {
      state.cost = charge.cost;
      return state;
    }
    const headers = quotaHeaders(state);
    if (result.refused === 'monthly' && state.monthly) {
      const { used, limit, resetSeconds } = state.monthly;
      const days = Math.floor(resetSeconds / 86_400);
      const hours = Math.floor((resetSeconds % 86_400) / 3600);
      throw new ApiError(
        402,
        `Monthly request limit exceeded (${used}/${limit}). Resets in ${days}d ${hours}h.`,
        { 'Retry-After': resetSeconds, ...headers },
      );
    }
    const hours = Math.floor(state.resetSeconds / 3600);
    const minutes = Math.floor((state.resetSeconds % 3600) / 60);
    throw new ApiError(
      402,
      `Daily request limit exceeded (${state.used}/${state.limit}). Resets in ${hours}h ${minutes}m.`,
      { 'Retry-After': state.resetSeconds, ...headers },
    );
  }

  /** A counted call of this charge ended in a 5xx (a 504 among them): its tool's `failed` count. */
  async countFailure(keyId: string, charge: Pick<QuotaCharge, 'day' | 'tool'>): Promise<void> {
    await this.store.countFailure(keyId, charge.day, charge.tool);
  }

  /**
   * Gives back the credits of a counted call that never ran (docs/keys-and-limits.md): off the day
   * and the month it was charged on, the call counted as failed for its tool that day. The one
   * place a refund is made.
   */
  async refund(
    keyId: string,
    charged: Pick<QuotaCharge, 'day' | 'tool'> & { credits: number },
  ): Promise<void> {
    await this.store.refund(keyId, {
      day: charged.day,
      month: charged.day.slice(0, 7),
      tool: charged.tool,
      credits: charged.credits,
    });
  }

  /** Where the key stands today (and this month, with a monthly limit). */
  async usage(key: Payer): Promise<QuotaState> {
    const charge = this.charge(key, '', 0);
    const [used, monthUsed] = await Promise.all([
      this.store.getUsage(key.id, charge.day),
      charge.monthlyLimit === null
        ? Promise.resolve(null)
        : this.store.getMonthUsage(key.id, charge.month),
    ]);
    return this.state(charge, used, monthUsed);
  }

  /** Credits of each of the last `days` UTC days, today first, per tool; days without calls as 0. */
  async history(key: Payer, days: number): Promise<DailyUsage[]> {
    const today = Date.parse(`${utcDay(this.clock.now())}T00:00:00Z`);
    const dates = Array.from({ length: days }, (_, i) => utcDay(new Date(today - i * 86_400_000)));
    const usage = await this.store.getUsageDays(key.id, dates);
    return dates.map((date, i) => ({ date, used: usage[i].used, by_tool: usage[i].byTool }));
  }

  private state(charge: QuotaCharge, used: number, monthUsed: number | null): QuotaState {
    const now = this.clock.now();
    const resetsAt = nextUtcMidnight(now);
    const limit = charge.dailyLimit;
    let monthly: MonthlyState | null = null;
    if (charge.monthlyLimit !== null) {
      const monthResetsAt = nextUtcMonth(now);
      const spent = monthUsed ?? 0;
      monthly = {
        limit: charge.monthlyLimit,
        used: spent,
        remaining: Math.max(0, charge.monthlyLimit - spent),
        resetsAt: monthResetsAt,
        resetSeconds: secondsUntil(monthResetsAt, now),
      };
    }
    return {
      limit,
      used,
      remaining: limit === null ? null : Math.max(0, limit - used),
      resetsAt,
      resetSeconds: secondsUntil(resetsAt, now),
      monthly,
    };
  }
}

/**
 * `X-Quota-*` headers: the day's limit (absent when unlimited), what is used and left, the seconds
 * to its reset; the cost of the call counted; and with a monthly limit, the month's figures. Written
 * into `into` (a new object by default) one by one, not as an object literal of conditional
 * spreads, which V8 copies through its slow path and leaves slow to read (docs/performance.md, "Why the hot path is written as it is").
 */
export function quotaHeaders(
  state: QuotaState,
  into: Record<string, number> = {},
): Record<string, number> {
  if (state.limit !== null) {
    into['X-Quota-Limit'] = state.limit;
    into['X-Quota-Remaining'] = state.remaining ?? 0;
  }
  into['X-Quota-Used'] = state.used;
  into['X-Quota-Reset'] = state.resetSeconds;
  if (state.cost !== undefined) into['X-Quota-Cost'] = state.cost;
  if (state.monthly !== null) {
    into['X-Quota-Monthly-Limit'] = state.monthly.limit;
    into['X-Quota-Monthly-Used'] = state.monthly.used;
    into['X-Quota-Monthly-Remaining'] = state.monthly.remaining;
  }
  return into;
}
