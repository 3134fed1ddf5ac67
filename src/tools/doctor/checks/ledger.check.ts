import { Inject, Injectable } from '@nestjs/common';
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import { Clock } from '../../../kernel/common/clock';
import { plural } from '../../../kernel/common/text';
import { Settings, SETTINGS } from '../../../kernel/settings/settings';
import { LedgerStore } from '../../../ledger';
import { UsageStore } from '../../../limits';
import { PrincipalStore } from '../../../subjects';
import { CheckOutcome, DoctorCheck, fail, HealthCheck, pass, warn } from '../doctor-check';

const DAY_MS = 86_400_000;
/** Subjects reconciled in one run, at most (the busiest deployments report the rest unchecked). */
const MAX_SUBJECTS = 2000;
/** Subjects reconciled in one turn of the event loop; requests are served between turns. */
const AT_ONCE = 32;

/** What a subject's day holds: its counter, and what its ledger entries sum to. */
interface Drift {
  subject: string;
  day: string;
  counted: number;
  ledger: number;
}

/** A reconciliation's outcome and when it was made. */
interface Checked {
  outcome: CheckOutcome;
  atMs: number;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The ledger against the counters: for every subject with entries counted today or yesterday
 * (UTC), each day's credits as counted equal what its entries sum to, a refund counting on the day
 * of the charge it gives back. Both sums are what the store already holds: the counters, and the
 * day sums the ledger's writer adds to in the step that writes an entry (LedgerDaySums); no entry
 * is read. On Redis, entries missing from the time index (a process stopped between the two writes,
 * on a Cluster) are reported first, as fixable; `--fix` indexes them (reading that subject's ids a
 * slice at a time), and the second run judges. A deleted principal's entries are not reconciled:
 * its counters were deleted with it.
 *
 * It reconciles at most once every DOCTOR_LEDGER_INTERVAL_SECONDS an instance: in between, and
 * while a reconciliation runs, it answers the last one, whose `checked_at` says when it was made.
 */
@DoctorCheck({ order: 88 })
@Injectable()
export class LedgerCheck implements HealthCheck {
  readonly name = 'ledger';
  private last?: Checked;
  private running?: Promise<Checked>;

  constructor(
    private readonly ledger: LedgerStore,
    private readonly usage: UsageStore,
    private readonly principals: PrincipalStore,
    private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async check(): Promise<CheckOutcome> {
    const intervalMs = this.settings.doctor.ledgerIntervalSeconds * 1000;
    const fresh = this.last && this.clock.nowMs() - this.last.atMs < intervalMs;
    const checked = fresh ? this.last! : await this.reconcileOnce();
    return { ...checked.outcome, checked_at: new Date(checked.atMs).toISOString() };
  }

  /** Indexes what the time index lacks; the next run reconciles afresh (doctor --fix's second). */
  async fix(): Promise<void> {
    const days = this.days();
    const { subjects } = await this.ledger.activeSubjects(days, MAX_SUBJECTS);
    for (let at = 0; at < subjects.length; at += AT_ONCE) {
      await Promise.all(
        subjects.slice(at, at + AT_ONCE).map(async (subject) => {
          const sums = await this.ledger.daySums(subject, days);
          if (sums.some((sum) => sum.unindexed > 0)) await this.ledger.indexMissing(subject, days);
        }),
      );
      await yieldToOthers();
    }
    this.last = undefined;
  }

  /** The reconciliation under way, or a new one: calls at once share one. */
  private reconcileOnce(): Promise<Checked> {
    this.running ??= this.reconcile().then(
      (checked) => {
        this.last = checked;
        this.running = undefined;
        return checked;
      },
      (error: unknown) => {
        this.running = undefined;
        throw error;
      },
    );
    return this.running;
  }

  /** Yesterday and today (UTC). */
  private days(): string[] {
    const now = this.clock.nowMs();
    return [dayOf(now - DAY_MS), dayOf(now)];
  }

  private async reconcile(): Promise<Checked> {
    const atMs = this.clock.nowMs();
    const days = this.days();
    const { subjects, total } = await this.ledger.activeSubjects(days, MAX_SUBJECTS);
    const drifts: Drift[] = [];
    let unindexed = 0;
    // Subjects a few at a time, then a turn of the event loop: their reads are round trips, which
    // a shared store answers at once, or seeks of the embedded store's day sums and counters.
    for (let at = 0; at < subjects.length; at += AT_ONCE) {
      const outcomes = await Promise.all(
        subjects.slice(at, at + AT_ONCE).map((subject) => this.reconcileSubject(subject, days)),
      );
      for (const outcome of outcomes) {
        drifts.push(...outcome.drifts);
        unindexed += outcome.unindexed;
      }
      await yieldToOthers();
    }
    return { outcome: this.judge(subjects.length, total, drifts, unindexed), atMs };
  }

  private async reconcileSubject(
    subject: string,
    days: string[],
  ): Promise<{ drifts: Drift[]; unindexed: number }> {
    // A deleted principal's counters went with it; its entries stay, what a bill is built from.
    if (subject.startsWith('prn_') && !(await this.principals.findPrincipal(subject))) {
      return { drifts: [], unindexed: 0 };
    }
    const [counted, sums] = await Promise.all([
      Promise.all(days.map((day) => this.usage.getUsage(subject, day))),
      this.ledger.daySums(subject, days),
    ]);
    return {
      drifts: days.flatMap((day, i) => {
        const ledger = Math.max(0, sums[i].credits);
        return counted[i] === ledger ? [] : [{ subject, day, counted: counted[i], ledger }];
      }),
      unindexed: sums.reduce((sum, day) => sum + day.unindexed, 0),
    };
  }

  private judge(checked: number, total: number, drifts: Drift[], unindexed: number): CheckOutcome {
    const scope = `${plural(checked, 'subject')} active today or yesterday`;
    const left = total > checked ? `; ${total - checked} more not checked` : '';
    // An entry missing from the time index is missing from what reads the ledger by time, so the
    // counters are judged once the entries are indexed (doctor --fix, then its second run).
    if (unindexed) {
      return warn(
        `${plural(unindexed, 'entry')} missing from the ledger's time index (doctor --fix indexes them, then reconciles the counters)`,
        true,
      );
    }
    if (drifts.length) {
      const shown = drifts
        .slice(0, 5)
        .map((d) => `${d.subject} on ${d.day}: counted ${d.counted}, ledger ${d.ledger}`);
      return fail(`Ledger and counters differ (${shown.join('; ')}) among ${scope}${left}`);
    }
    return pass(`The ledger matches the counters of ${scope}${left}`);
  }
}
