import { Injectable } from '@nestjs/common';
import { Clock } from '../kernel/common/clock';
import type { QuotaState } from '../limits';
import { WebhookStore } from './webhook.store';
import { WebhooksService } from './webhooks.service';

/** The shares of a limit whose crossing is announced, in percent. */
export const QUOTA_THRESHOLDS = [80, 100] as const;

/** Who spends: a key or an OAuth principal (a run's call: within that run). */
export interface QuotaSubject {
  kind: 'key' | 'principal';
  id: string;
  run?: { id: string };
}

/** A run's budget is kept at most 37 days (a week's run and its 30 days): so are its markers. */
const RUN_MARK_MS = 37 * 86_400_000;

interface Crossing {
  period: 'day' | 'month';
  periodStart: string;
  threshold: number;
  limit: number;
  used: number;
  resetsAt: Date;
}

/** The period a state's reset ends: its first day, or month, as `YYYY-MM-DD` or `YYYY-MM`. */
const periodOf = (resetsAt: Date, length: number) =>
  new Date(resetsAt.getTime() - 1).toISOString().slice(0, length);

/** The thresholds a count of one period passed when a charge of `cost` took it to `used`. */
function crossingsOf(
  period: Crossing['period'],
  { limit, used, resetsAt }: { limit: number | null; used: number; resetsAt: Date },
  cost: number,
): Crossing[] {
  if (limit === null) return [];
  const before = used - cost;
  const periodStart = periodOf(resetsAt, period === 'day' ? 10 : 7);
  return QUOTA_THRESHOLDS.filter((t) => before * 100 < t * limit && used * 100 >= t * limit).map(
    (threshold) => ({ period, periodStart, threshold, limit, used, resetsAt }),
  );
}

/**
 * `quota.threshold`: a key's or principal's daily or monthly credits crossed 80 % or 100 % of its
 * limit. The count is atomic, so one call crosses each threshold; a marker in the store (set once,
 * by any instance) makes it one event even when a refund lets the count cross again.
 */
@Injectable()
export class QuotaThresholds {
  constructor(
    private readonly store: WebhookStore,
    private readonly webhooks: WebhooksService,
    private readonly clock: Clock,
  ) {}

  /**
   * After a call was charged: the events of the thresholds it crossed, stored; undefined (no
   * promise, no work) when it crossed none, as nearly every call.
   */
  check(subject: QuotaSubject, state: QuotaState): Promise<void> | undefined {
    const cost = state.cost ?? 0;
    if (cost <= 0) return undefined;
    const crossings = [
      ...crossingsOf('day', state, cost),
      ...(state.monthly ? crossingsOf('month', state.monthly, cost) : []),
    ];
    const run = subject.run && state.run;
    const runCrossings = run
      ? QUOTA_THRESHOLDS.filter(
          (t) => (run.spent - cost) * 100 < t * run.budget && run.spent * 100 >= t * run.budget,
        )
      : [];
    if (crossings.length === 0 && runCrossings.length === 0) return undefined;
    return this.announce(subject, crossings).then(() =>
      this.announceRun(subject, state, runCrossings),
    );
  }

  /** `run.budget_threshold`: once per run and threshold, as the quota's. */
  private async announceRun(
    subject: QuotaSubject,
    state: QuotaState,
    thresholds: number[],
  ): Promise<void> {
    if (!subject.run || !state.run) return;
    for (const threshold of thresholds) {
      const marker = `run:${subject.run.id}:${threshold}`;
      const now = this.clock.nowMs();
      const until = new Date(now + RUN_MARK_MS).toISOString();
      if (!(await this.store.markOnce(marker, new Date(now).toISOString(), until))) continue;
      await this.webhooks.publish('run.budget_threshold', {
        run: { id: subject.run.id, parent: { kind: subject.kind, id: subject.id } },
        threshold,
        budget: state.run.budget,
        spent: state.run.spent,
      });
    }
  }

  private async announce(subject: QuotaSubject, crossings: Crossing[]): Promise<void> {
    for (const crossing of crossings) {
      const marker = `quota:${subject.id}:${crossing.periodStart}:${crossing.threshold}`;
      // Kept a day past the period's end: a late refund and charge still finds it.
      const until = new Date(crossing.resetsAt.getTime() + 86_400_000).toISOString();
      if (!(await this.store.markOnce(marker, this.clock.now().toISOString(), until))) continue;
      await this.webhooks.publish('quota.threshold', {
        subject: { kind: subject.kind, id: subject.id },
        period: crossing.period,
        period_start: crossing.periodStart,
        threshold: crossing.threshold,
        limit: crossing.limit,
        used: crossing.used,
        resets_at: crossing.resetsAt.toISOString(),
      });
    }
  }
}
