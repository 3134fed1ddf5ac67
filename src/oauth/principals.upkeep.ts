import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { Clock, utcDay } from '../kernel/common/clock';
import { Periodic } from '../kernel/common/periodic';
import { planLimits, UsageStore } from '../limits';
import { OAuthSettings, Settings, SETTINGS } from '../kernel/settings/settings';
import { PrincipalPosition, PrincipalRecord, PrincipalStore, scopeUnion } from '../subjects';
import { principalId } from './principals.service';

/** Idle principals are purged this often (and at start-up). */
export const PRINCIPAL_PURGE_MS = 3_600_000;
/** Records read at once by the start-up merge. */
const MERGE_PAGE = 1000;

/** The lowest of the limits set; null when none is (each falls back to the plan's). */
function strictest(limits: (number | null)[]): number | null {
  const set = limits.filter((limit): limit is number => limit !== null);
  return set.length ? Math.min(...set) : null;
}

/**
 * One record of a subject's several (an older version made one per client): disabled if any was,
 * the strictest operator settings (the lowest limits; of several operator plans, the one with the
 * lowest daily, then monthly, then rate limit), the scopes of all (one with none recorded counts
 * as every scope, and so does the merge), first seen at the first sight, the client and token plan
 * of the last, the external id of the last seen that had one.
 */
export function mergeRecords(
  id: string,
  records: PrincipalRecord[],
  settings: Settings,
): PrincipalRecord {
  const byLastSight = [...records].sort((a, b) => a.last_seen_at.localeCompare(b.last_seen_at));
  const last = byLastSight[byLastSight.length - 1];
  const rank = (plan: string) => {
    const limits = planLimits(settings, plan);
    return [limits.daily_limit, limits.monthly_limit, limits.rate_limit].map(
      (limit) => limit ?? Infinity,
    );
  };
  const plans = records.map((r) => r.plan).filter((plan): plan is string => plan !== null);
  const plan = plans.reduce<string | null>((best, candidate) => {
    if (best === null) return candidate;
    const [a, b] = [rank(candidate), rank(best)];
    const i = a.findIndex((value, at) => value !== b[at]);
    return i >= 0 && a[i] < b[i] ? candidate : best;
  }, null);
  return {
    id,
    issuer: last.issuer,
    subject: last.subject,
    client_id: last.client_id,
    plan,
    token_plan: last.token_plan,
    daily_limit: strictest(records.map((r) => r.daily_limit)),
    monthly_limit: strictest(records.map((r) => r.monthly_limit)),
    rate_limit: strictest(records.map((r) => r.rate_limit)),
    enabled: records.every((r) => r.enabled),
    scopes: records.map((r) => r.scopes).reduce(scopeUnion),
    first_seen_at: records.map((r) => r.first_seen_at).sort()[0],
    last_seen_at: last.last_seen_at,
    external_id:
      [...byLastSight].reverse().find((r) => r.external_id !== null)?.external_id ?? null,
  };
}

/**
 * The principals' upkeep in a server (docs/oauth.md#principals-whom-a-token-speaks-for). At
 * start-up, before a token is served, records of one issuer and subject made under several ids
 * (one per client, by versions whose principal was issuer, client and subject) become one, their
 * usage summed. Hourly, principals unseen for OAUTH_PRINCIPAL_IDLE_DAYS, enabled and without an
 * operator's settings, are deleted with their usage history.
 */
@Injectable()
export class PrincipalUpkeep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('OAuth');
  private readonly oauth?: OAuthSettings;
  private readonly purging = new Periodic({
    everyMs: PRINCIPAL_PURGE_MS,
    work: () => this.purgeIdle(),
    onError: () => undefined,
  });

  constructor(
    private readonly store: PrincipalStore,
    private readonly usage: UsageStore,
    private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {
    this.oauth = settings.oauth;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.oauth) return;
    await this.mergeSubjects();
    this.purging.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.purging.stop();
  }

  /**
   * Merges every subject's records kept under an id that is not its own, on one instance at a
   * time (the others wait for it). Each step can be made again after a stop half-way: the merged
   * record is written first, then each old id's usage moved (taken from it, so never twice), then
   * the old records deleted.
   */
  async mergeSubjects(): Promise<void> {
    await this.store.exclusively('merge', async () => {
      const groups = await this.recordsUnderOtherIds();
      const today = utcDay(this.clock.now());
      for (const [id, records] of groups) {
        const current = await this.store.findPrincipal(id);
        await this.store.putPrincipal(
          mergeRecords(id, current ? [current, ...records] : records, this.settings),
        );
        for (const record of records) {
          await this.usage.moveUsage(record.id, id, today);
          await this.store.deletePrincipal(record.id);
        }
      }
      if (groups.size) {
        const records = [...groups.values()].reduce((sum, group) => sum + group.length, 0);
        this.logger.log(`Merged ${records} principal record(s) into ${groups.size} principal(s)`);
      }
    });
  }

  /** Records whose id is not the one of their issuer and subject, by the id they belong to. */
  private async recordsUnderOtherIds(): Promise<Map<string, PrincipalRecord[]>> {
    const groups = new Map<string, PrincipalRecord[]>();
    let after: PrincipalPosition | undefined;
    for (;;) {
      const page = await this.store.listPrincipals({ after, limit: MERGE_PAGE });
      for (const record of page) {
        const id = principalId(record.issuer, record.subject);
        if (id !== record.id) groups.set(id, [...(groups.get(id) ?? []), record]);
      }
      if (page.length < MERGE_PAGE) return groups;
      after = page[page.length - 1];
    }
  }

  /** Deletes the idle principals and their usage history; never throws (logged). */
  async purgeIdle(): Promise<number> {
    if (!this.oauth) return 0;
    try {
      const now = this.clock.now();
      const idleSince = new Date(now.getTime() - this.oauth.principalIdleDays * 86_400_000);
      let purged = 0;
      for await (const ids of this.store.purgeIdlePrincipals(idleSince.toISOString())) {
        for (const id of ids) await this.usage.deleteUsage(id, utcDay(now));
        purged += ids.length;
      }
      if (purged) {
        this.logger.log(
          `Purged ${purged} principal(s) unseen for ${this.oauth.principalIdleDays} days`,
        );
      }
      return purged;
    } catch (error) {
      this.logger.warn({ err: error }, 'Could not purge idle principals');
      return 0;
    }
  }
}
