import { Injectable } from '@nestjs/common';
import type { ToolUsageView } from '../limits';
import { Clock, utcDay } from '../kernel/common/clock';
import { KeyStore, PrincipalStore } from '../subjects';
import { type DayUsage, UsageStore } from '../limits';
import type {
  DailyTotalsView,
  TopCallerView,
  TopToolView,
  TopUsageView,
  UsageSumView,
  UsageTotalsView,
} from './reports.dto';

/** Records read a page at a time while looking for the subjects used in a period. */
const PAGE = 500;
/** Subjects whose counters are read at once. */
const PARALLEL = 16;
const DAY_MS = 86_400_000;
/**
 * A subject's `last_used_at` (`last_seen_at`) is written at most once a minute per instance, so
 * it may lag its last call by that much: a subject last seen up to a day before the period is
 * read too.
 */
const LAST_USE_SLACK_MS = DAY_MS;

/** A key or principal whose counters were read, with what it spent in the period. */
interface SubjectTotals extends UsageSumView {
  kind: TopCallerView['kind'];
  id: string;
  name: string;
}

/** Every subject's spend over a period, summed by day, by subject and by tool. */
interface UsageSnapshot {
  days: DailyTotalsView[];
  subjects: SubjectTotals[];
  tools: TopToolView[];
}

interface Subject {
  kind: TopCallerView['kind'];
  id: string;
  name: string;
}

function emptySum(): UsageSumView {
  return { calls: 0, credits: 0, failed: 0 };
}

function add(into: UsageSumView, usage: ToolUsageView): void {
  into.calls += usage.calls;
  into.credits += usage.credits;
  into.failed += usage.failed;
}

/**
 * What every key and principal spent, from the usage counters the store already keeps (a day's
 * counters per subject and tool: the quota's own), never from a scan of each call. The subjects
 * used in the period are found from their records' last use; only their counters are read, the
 * same reads as `GET /api/v1/auth/api-keys/<id>/usage`, on either store. Requests for the same
 * period that arrive while one is being summed share its answer.
 */
@Injectable()
export class UsageTotals {
  private readonly running = new Map<string, Promise<UsageSnapshot>>();

  constructor(
    private readonly keys: KeyStore,
    private readonly principals: PrincipalStore,
    private readonly usage: UsageStore,
    private readonly clock: Clock,
  ) {}

  /** The last `days` UTC days, today first. */
  dates(days: number): string[] {
    const today = Date.parse(`${utcDay(this.clock.now())}T00:00:00Z`);
    return Array.from({ length: days }, (_, i) => utcDay(new Date(today - i * DAY_MS)));
  }

  /** Calls, credits and failures of every key and principal over `days`, by UTC day. */
  async byDay(days: number): Promise<UsageTotalsView> {
    const snapshot = await this.snapshot(days);
    const totals = emptySum();
    for (const day of snapshot.days) add(totals, day);
    return { days, totals, history: snapshot.days, subjects: snapshot.subjects.length };
  }

  /** The `limit` keys and principals that spent the most over `days`, and the tools called the most. */
  async top(days: number, limit: number): Promise<TopUsageView> {
    const snapshot = await this.snapshot(days);
    const callers = [...snapshot.subjects]
      .sort((a, b) => b.credits - a.credits || b.calls - a.calls || a.id.localeCompare(b.id))
      .slice(0, limit);
    const tools = [...snapshot.tools]
      .sort((a, b) => b.calls - a.calls || b.credits - a.credits || a.tool.localeCompare(b.tool))
      .slice(0, limit);
    return { days, callers, tools };
  }

  private snapshot(days: number): Promise<UsageSnapshot> {
    const dates = this.dates(days);
    const at = `${dates[0]} ${days}`;
    let running = this.running.get(at);
    if (!running) {
      running = this.sum(dates).finally(() => this.running.delete(at));
      this.running.set(at, running);
    }
    return running;
  }

  private async sum(dates: string[]): Promise<UsageSnapshot> {
    const since = Date.parse(`${dates[dates.length - 1]}T00:00:00Z`) - LAST_USE_SLACK_MS;
    const subjects = await this.usedSince(since);
    const days: DailyTotalsView[] = dates.map((date) => ({ date, ...emptySum(), by_tool: {} }));
    const tools = new Map<string, TopToolView>();
    const totals: SubjectTotals[] = [];
    for (let i = 0; i < subjects.length; i += PARALLEL) {
      const batch = subjects.slice(i, i + PARALLEL);
      const usages = await Promise.all(batch.map((s) => this.usage.getUsageDays(s.id, dates)));
      batch.forEach((subject, j) => {
        const spent = { ...subject, ...emptySum() };
        usages[j].forEach((day: DayUsage, d) => {
          for (const [tool, usage] of Object.entries(day.byTool)) {
            add(days[d], usage);
            add((days[d].by_tool[tool] ??= emptySum()), usage);
            add(spent, usage);
            let forTool = tools.get(tool);
            if (!forTool) tools.set(tool, (forTool = { tool, ...emptySum() }));
            add(forTool, usage);
          }
        });
        if (spent.calls > 0 || spent.credits > 0) totals.push(spent);
      });
    }
    return { days, subjects: totals, tools: [...tools.values()] };
  }

  /** Keys and principals whose last use is at or after `since` (ms), in their lists' order. */
  private async usedSince(since: number): Promise<Subject[]> {
    const used: Subject[] = [];
    const recent = (at: string | null) => at !== null && Date.parse(at) >= since;
    for (let after: { created_at: string; id: string } | undefined; ;) {
      const page = await this.keys.listKeys({ after, limit: PAGE });
      for (const key of page) {
        if (recent(key.last_used_at)) used.push({ kind: 'key', id: key.id, name: key.name });
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1];
    }
    for (let after: { first_seen_at: string; id: string } | undefined; ;) {
      const page = await this.principals.listPrincipals({ after, limit: PAGE });
      for (const principal of page) {
        if (recent(principal.last_seen_at)) {
          used.push({ kind: 'principal', id: principal.id, name: principal.subject });
        }
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1];
    }
    return used;
  }
}
