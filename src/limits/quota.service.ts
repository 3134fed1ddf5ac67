import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../kernel/errors/api-error';
import { Settings, SETTINGS } from '../kernel/settings/settings';
import { type LedgerTransport, newLedgerId, type NewLedgerEntry } from '../ledger';
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
  /** A run's call: where the run stands against its budget. */
  run?: RunState;
}

/** Where a run stands against its budget. */
export interface RunState {
  budget: number;
  spent: number;
  remaining: number;
}

/** How a counted call came, for its ledger entry (the rest of the entry is its charge's). */
export interface LedgerContext {
  transport: LedgerTransport;
  request_id: string | null;
  idempotency_key: string | null;
  invocation_id: string | null;
  /** A source's tool: its source (the entry's `source`). */
  source?: string | null;
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

  /**
   * What a call of `tool` made now costs the key, against which limits (and its run's budget), and
   * with `ledger`, the ledger entry written when it is counted.
   */
  charge(key: Payer, tool: string, declaredCost: number, ledger?: LedgerContext): QuotaCharge {
    const now = this.clock.now();
    const limits = effectiveLimits(key, this.settings);
    const day = utcDay(now);
    const charge: QuotaCharge = {
      day,
      dailyLimit: limits.daily_limit,
      month: day.slice(0, 7),
      monthlyLimit: limits.monthly_limit,
      cost: toolCost(this.settings, key.plan, tool, declaredCost),
      tool,
    };
    if (key.run) charge.run = key.run;
    if (ledger) charge.entry = this.entry(key, tool, charge.cost, 'charge', ledger);
    return charge;
  }

  /** A ledger entry of `key` made now (a refund's credits are negative). */
  entry(
    key: Pick<Payer, 'id' | 'kind' | 'external_id' | 'run'>,
    tool: string,
    credits: number,
    kind: NewLedgerEntry['kind'],
    ledger: LedgerContext,
  ): NewLedgerEntry {
    return {
      id: newLedgerId(this.clock.nowMs()),
      subject: { kind: key.kind ?? 'key', id: key.id, external_id: key.external_id ?? null },
      run_id: key.run?.id ?? null,
      tool,
      credits,
      kind,
      transport: ledger.transport,
      request_id: ledger.request_id,
      idempotency_key: ledger.idempotency_key,
      invocation_id: ledger.invocation_id,
      source: ledger.source ?? null,
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
    if (charge.run && result.runSpent !== undefined) {
      const { budget } = charge.run;
      const spent = result.runSpent;
      state.run = { budget, spent, remaining: Math.max(0, budget - spent) };
    }
    if (result.allowed) {
      state.cost = charge.cost;
      return state;
    }
    const headers = quotaHeaders(state);
    if (result.refused === 'run' && state.run) {
      // A run's budget does not come back with time: no Retry-After.
      throw new ApiError(
        402,
        `Run budget exhausted (${state.run.spent}/${state.run.budget}).`,
        headers,
      );
    }
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
    charged: Pick<QuotaCharge, 'day' | 'tool'> & { credits: number; entry?: NewLedgerEntry | null },
  ): Promise<void> {
    const charge = charged.entry;
    await this.store.refund(keyId, {
      day: charged.day,
      month: charged.day.slice(0, 7),
      tool: charged.tool,
      credits: charged.credits,
      runId: charge?.run_id ?? null,
      // The charge's entry, given back: its subject, run and origin, negative credits, made now.
      entry: charge
        ? {
            ...charge,
            id: newLedgerId(this.clock.nowMs()),
            credits: -charged.credits,
            kind: 'refund',
          }
        : undefined,
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
  into: Record<string, string | number> = {},
): Record<string, string | number> {
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
  if (state.run !== undefined) into['X-Run-Budget-Remaining'] = state.run.remaining;
  return into;
}
