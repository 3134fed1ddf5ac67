import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../errors/api-error';
import { Settings, SETTINGS } from '../settings/settings';
import { QuotaResult, UsageStore } from '../store/usage/usage.store';
import { Clock, nextUtcMidnight, utcDay } from './clock';
import { effectiveLimits, LimitedKey } from './key-limits';

/** Where a call made now is counted: the UTC day, the key's daily limit, and the next reset. */
export interface QuotaDay {
  day: string;
  limit: number | null;
  resetsAt: Date;
  resetSeconds: number;
}

export interface QuotaState {
  limit: number | null;
  used: number;
  remaining: number | null;
  resetsAt: Date;
  /** Whole seconds until the next UTC midnight. */
  resetSeconds: number;
}

/** Daily quotas per key and UTC day, counted atomically in the store. */
@Injectable()
export class QuotaService {
  constructor(
    private readonly store: UsageStore,
    private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  private window() {
    const now = this.clock.now();
    const resetsAt = nextUtcMidnight(now);
    return {
      day: utcDay(now),
      resetsAt,
      resetSeconds: Math.ceil((resetsAt.getTime() - now.getTime()) / 1000),
    };
  }

  private state(
    limit: number | null,
    used: number,
    resetsAt: Date,
    resetSeconds: number,
  ): QuotaState {
    return {
      limit,
      used,
      remaining: limit === null ? null : Math.max(0, limit - used),
      resetsAt,
      resetSeconds,
    };
  }

  /** Counts one call, or throws 402 when the day's limit is used up (a refused call is not counted). */
  async consume(key: LimitedKey): Promise<QuotaState> {
    const today = this.today(key);
    return this.settle(today, await this.store.consumeQuota(key.id, today.day, today.limit));
  }

  /** The key's daily limit and the UTC day a call made now counts on. */
  today(key: LimitedKey): QuotaDay {
    return { limit: effectiveLimits(key, this.settings).daily_limit, ...this.window() };
  }

  /** A call counted on `today` (here or by the rate step): its state, or the 402 when refused. */
  settle(today: QuotaDay, result: QuotaResult): QuotaState {
    const { limit, resetsAt, resetSeconds } = today;
    if (!result.allowed) {
      const hours = Math.floor(resetSeconds / 3600);
      const minutes = Math.floor((resetSeconds % 3600) / 60);
      throw new ApiError(
        402,
        `Daily request limit exceeded (${result.used}/${limit}). Resets in ${hours}h ${minutes}m.`,
        {
          'Retry-After': resetSeconds,
          ...quotaHeaders(this.state(limit, result.used, resetsAt, resetSeconds)),
        },
      );
    }
    return this.state(limit, result.used, resetsAt, resetSeconds);
  }

  async usage(key: LimitedKey): Promise<QuotaState> {
    const { daily_limit: limit } = effectiveLimits(key, this.settings);
    const { day, resetsAt, resetSeconds } = this.window();
    return this.state(limit, await this.store.getUsage(key.id, day), resetsAt, resetSeconds);
  }

  /** Calls counted on each of the last `days` UTC days, today first; days without calls as 0. */
  async history(key: LimitedKey, days: number): Promise<DailyUsage[]> {
    const today = Date.parse(`${utcDay(this.clock.now())}T00:00:00Z`);
    const dates = Array.from({ length: days }, (_, i) => utcDay(new Date(today - i * 86_400_000)));
    const counts = await this.store.getUsageDays(key.id, dates);
    return dates.map((date, i) => ({ date, used: counts[i] }));
  }
}

/** Calls counted on one UTC day. */
export interface DailyUsage {
  date: string;
  used: number;
}

/** The usage history reaches back this many UTC days, today included. */
export const HISTORY_MAX_DAYS = 90;

/** `X-Quota-*` headers: the daily limit (absent when unlimited), what is left, and seconds to reset. */
export function quotaHeaders(state: QuotaState): Record<string, number> {
  return {
    ...(state.limit === null
      ? {}
      : { 'X-Quota-Limit': state.limit, 'X-Quota-Remaining': state.remaining ?? 0 }),
    'X-Quota-Used': state.used,
    'X-Quota-Reset': state.resetSeconds,
  };
}
