import { FakeClock } from '../../../../test/support/fake-clock';
import { onBothBackends } from '../../../../test/support/store-contract';
import type { RedisClient } from '../../../kernel/store/redis/redis.connection';
import type { Settings } from '../../../kernel/settings/settings';
import type { StoreMakers } from '../../../kernel/store/store.module';
import { LedgerEntry, LedgerKeys, newLedgerId, type LedgerStore } from '../../../ledger';
import { LEDGER_STORE } from '../../../ledger/ledger.stores';
import { USAGE_STORE } from '../../../limits/limits.stores';
import type { UsageStore } from '../../../limits/usage.store';
import { PRINCIPAL_STORE } from '../../../subjects/subjects.stores';
import type { PrincipalStore } from '../../../subjects';
import { LedgerCheck } from './ledger.check';

/** What the check reads, on one backend, and Redis's connection to take an index member by hand. */
interface Stores {
  ledger: LedgerStore;
  usage: UsageStore;
  principals: PrincipalStore;
  redis?: RedisClient;
}

const STORES: StoreMakers<Stores> = {
  sqlite: async (sqlite) => ({
    ledger: await LEDGER_STORE.sqlite(sqlite),
    usage: await USAGE_STORE.sqlite(sqlite),
    principals: await PRINCIPAL_STORE.sqlite(sqlite),
  }),
  redis: async (redis) => ({
    ledger: await LEDGER_STORE.redis(redis),
    usage: await USAGE_STORE.redis(redis),
    principals: await PRINCIPAL_STORE.redis(redis),
    redis: redis.client,
  }),
};

const KEY = 'key_0123456789abcdef';
const T0 = Date.parse('2026-11-27T08:00:00.000Z');
const DAY = '2026-11-27';

/** A call of `credits` counted at `atMs`, with its ledger entry unless `entry` is false. */
async function count(usage: UsageStore, atMs: number, credits: number, entry = true) {
  const made: LedgerEntry = {
    id: newLedgerId(atMs),
    at: new Date(atMs).toISOString(),
    subject: { kind: 'key', id: KEY, external_id: null },
    run_id: null,
    tool: 'greet',
    credits,
    kind: 'charge',
    transport: 'rest',
    request_id: `req-${atMs}`,
    idempotency_key: null,
    invocation_id: null,
    source: null,
  };
  const result = await usage.consumeQuota(KEY, {
    day: DAY,
    dailyLimit: null,
    month: DAY.slice(0, 7),
    monthlyLimit: null,
    cost: credits,
    tool: 'greet',
    ...(entry ? { entry: made } : {}),
  });
  expect(result.allowed).toBe(true);
  return made;
}

/**
 * doctor's ledger check against the stores a service writes: what the counters hold against what
 * the ledger's entries sum to, per subject and day; on Redis, entries a process stopped before
 * writing to the time index (kill -9 between the two writes on a Cluster) are fixable, and their
 * subjects' sums are not judged until they are indexed.
 */
onBothBackends('doctor ledger check', STORES, (current, kind) => {
  const settings = { doctor: { ledgerIntervalSeconds: 60 } } as Settings;
  const check = (clock = new FakeClock(new Date(T0 + 3_600_000))) => {
    const { ledger, usage, principals } = current().store;
    return new LedgerCheck(ledger, usage, principals, clock, settings);
  };

  it('passes when every day counted equals what its entries sum to', async () => {
    const { usage } = current().store;
    await count(usage, T0, 1);
    await count(usage, T0 + 1000, 5);
    expect(await check().check()).toEqual({
      status: 'pass',
      message: 'The ledger matches the counters of 1 subject active today or yesterday',
      checked_at: new Date(T0 + 3_600_000).toISOString(),
    });
  });

  it('answers its last result within the interval, with its checked_at; reconciles again after it', async () => {
    const { usage } = current().store;
    await count(usage, T0, 1);
    const clock = new FakeClock(new Date(T0 + 3_600_000));
    const once = check(clock);
    const first = await once.check();
    expect(first).toMatchObject({ status: 'pass', checked_at: clock.now().toISOString() });
    // A count without its entry: a drift the next reconciliation finds.
    await count(usage, T0 + 1000, 5, false);
    clock.set(new Date(T0 + 3_600_000 + 59_999));
    expect(await once.check()).toEqual(first);
    clock.set(new Date(T0 + 3_600_000 + 60_000));
    expect(await once.check()).toMatchObject({
      status: 'fail',
      checked_at: clock.now().toISOString(),
    });
  });

  it('shares one reconciliation between calls at once', async () => {
    const { usage } = current().store;
    await count(usage, T0, 1);
    const once = check();
    const [a, b, c] = await Promise.all([once.check(), once.check(), once.check()]);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it('fails on a count without its entry, naming the subject, the day and both sums', async () => {
    const { usage } = current().store;
    await count(usage, T0, 1);
    await count(usage, T0 + 1000, 5, false);
    const outcome = await check().check();
    expect(outcome.status).toBe('fail');
    expect(outcome.fixable).toBeUndefined();
    expect(outcome.message).toContain(`${KEY} on ${DAY}: counted 6, ledger 1`);
  });

  if (kind === 'redis') {
    it('reports an entry missing from the time index as fixable, not as a drift; fixed, it passes', async () => {
      const { usage, redis } = current().store;
      await count(usage, T0, 1);
      const lost = await count(usage, T0 + 1000, 5);
      // What a process stopped between the two writes leaves (a Cluster): the entry beside its
      // counters, neither in the time index nor counted among the day's indexed entries.
      expect(await redis!.zrem(LedgerKeys.index, LedgerKeys.indexMember(lost))).toBe(1);
      expect(await redis!.hincrby(LedgerKeys.subjects(DAY), KEY, -1)).toBe(1);

      const once = check();
      const before = await once.check();
      expect(before).toEqual({
        status: 'warn',
        message: expect.stringContaining("1 entry missing from the ledger's time index"),
        fixable: true,
        checked_at: expect.any(String),
      });
      await once.fix();
      expect(await redis!.zscore(LedgerKeys.index, LedgerKeys.indexMember(lost))).toBe('0');
      expect(await redis!.hget(LedgerKeys.subjects(DAY), KEY)).toBe('2');
      // The fix forgets the last result: the run after it reconciles afresh.
      expect((await once.check()).status).toBe('pass');
    });
  }
});
