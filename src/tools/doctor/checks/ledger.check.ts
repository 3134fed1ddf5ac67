import { Injectable } from '@nestjs/common';
import { Clock } from '../../../kernel/common/clock';
import { plural } from '../../../kernel/common/text';
import { LedgerStore } from '../../../ledger';
import { UsageStore } from '../../../limits';
import { PrincipalStore } from '../../../subjects';
import { CheckOutcome, DoctorCheck, fail, HealthCheck, pass, warn } from '../doctor-check';

const DAY_MS = 86_400_000;
/** Subjects reconciled in one run, at most (the busiest deployments report the rest unchecked). */
const MAX_SUBJECTS = 2000;
/** Subjects reconciled at the same time. */
const AT_ONCE = 32;

/** What a subject's day holds: its counter, and what its ledger entries sum to. */
interface Drift {
  subject: string;
  day: string;
  counted: number;
  ledger: number;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The ledger against the counters: for every subject with entries today or yesterday (UTC), each
 * day's credits as counted equal what its entries sum to, a refund counting on the day of the
 * charge it gives back (found by its invocation). On Redis, entries missing from the time index
 * (a process stopped between the two writes, on a Cluster) are reported first, as fixable: the
 * sums are read through that index. `--fix` indexes them, and the second run judges. A deleted
 * principal's entries are not reconciled: its counters were deleted with it.
 */
@DoctorCheck({ order: 88 })
@Injectable()
export class LedgerCheck implements HealthCheck {
  readonly name = 'ledger';

  constructor(
    private readonly ledger: LedgerStore,
    private readonly usage: UsageStore,
    private readonly principals: PrincipalStore,
    private readonly clock: Clock,
  ) {}

  async run(): Promise<CheckOutcome> {
    return this.reconcile(false);
  }

  async fix(): Promise<void> {
    await this.reconcile(true);
  }

  private async reconcile(apply: boolean): Promise<CheckOutcome> {
    const now = this.clock.nowMs();
    const today = Date.parse(`${dayOf(now)}T00:00:00Z`);
    const days = [dayOf(today - DAY_MS), dayOf(today)];
    // One pass over the entries from the day before yesterday (a refund of today may give back a
    // charge of then): each subject's credits per day of the charge.
    const sums = await this.daySums(today - 2 * DAY_MS, now + 1, days[0]);
    const subjects = [...sums.keys()];
    const checked = subjects.slice(0, MAX_SUBJECTS);
    const drifts: Drift[] = [];
    let unindexed = 0;
    // Subjects a few at a time: their reads are round trips, which a shared store answers at once.
    for (let at = 0; at < checked.length; at += AT_ONCE) {
      const outcomes = await Promise.all(
        checked.slice(at, at + AT_ONCE).map(async (subject) => {
          // A deleted principal's counters went with it; its entries stay, what a bill is built from.
          if (subject.startsWith('prn_') && !(await this.principals.findPrincipal(subject))) {
            return { drifts: [], unindexed: 0 };
          }
          const counted = await Promise.all(days.map((day) => this.usage.getUsage(subject, day)));
          return {
            drifts: days.flatMap((day, i) => {
              const ledger = Math.max(0, sums.get(subject)?.get(day) ?? 0);
              return counted[i] === ledger ? [] : [{ subject, day, counted: counted[i], ledger }];
            }),
            unindexed: await this.ledger.unindexed(subject, today - DAY_MS, now + 1, apply),
          };
        }),
      );
      for (const outcome of outcomes) {
        drifts.push(...outcome.drifts);
        unindexed += outcome.unindexed;
      }
    }
    const scope = `${plural(checked.length, 'subject')} active today or yesterday`;
    const left =
      subjects.length > checked.length
        ? `; ${subjects.length - checked.length} more not checked`
        : '';
    // The sums were read through the time index: an entry missing from it is missing from them,
    // so the counters are judged once the entries are indexed (doctor --fix, then its second run).
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

  /**
   * Credits per subject and UTC day of the charge, each refund on its charge's day (its own when
   * unknown), for the subjects with entries since `since` (a day, YYYY-MM-DD).
   */
  private async daySums(
    fromMs: number,
    toMs: number,
    since: string,
  ): Promise<Map<string, Map<string, number>>> {
    const sums = new Map<string, Map<string, number>>();
    const chargedOn = new Map<string, string>();
    const active = new Set<string>();
    for await (const entry of this.ledger.stream({ fromMs, toMs })) {
      let day = entry.at.slice(0, 10);
      if (day >= since) active.add(entry.subject.id);
      if (entry.kind === 'charge' && entry.invocation_id) chargedOn.set(entry.invocation_id, day);
      if (entry.kind === 'refund' && entry.invocation_id) {
        day = chargedOn.get(entry.invocation_id) ?? day;
      }
      const subject = sums.get(entry.subject.id) ?? new Map<string, number>();
      subject.set(day, (subject.get(day) ?? 0) + entry.credits);
      sums.set(entry.subject.id, subject);
    }
    for (const subject of sums.keys()) if (!active.has(subject)) sums.delete(subject);
    return sums;
  }
}
