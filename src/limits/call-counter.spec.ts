import { RedisKeys } from '../kernel/store/redis/redis.keys';
import type { StoreMakers } from '../kernel/store/store.module';
import { onBothBackends } from '../../test/support/store-contract';
import { CallCounter, CallCount } from './call-counter';
import { LocalCallCounter } from './local-call-counter';
import { MemoryRateStore } from './memory-rate.store';
import { RedisCallCounter } from './redis-call-counter';
import { RedisUsageStore } from './redis-usage.store';
import { SqliteUsageStore } from './sqlite-usage.store';
import type { UsageStore } from './usage.store';

interface Counting {
  counter: CallCounter;
  usage: UsageStore;
  /**
   * A key's record at a revision, as the key store writes it. On Redis the count compares the
   * revision a call was decided on with it (a cached copy's); SQLite keeps no copy to compare.
   */
  keyAt(id: string, revision: number): Promise<void>;
}

/** The counter as the service makes it on each backend, with the usage store it counts into. */
const COUNTER: StoreMakers<Counting> = {
  sqlite: (sqlite) => {
    const usage = new SqliteUsageStore(sqlite);
    return {
      counter: new LocalCallCounter(new MemoryRateStore(), usage),
      usage,
      keyAt: () => Promise.resolve(),
    };
  },
  redis: (redis) => ({
    counter: new RedisCallCounter(redis.client),
    usage: new RedisUsageStore(redis),
    keyAt: async (id, revision) => {
      await redis.client.hset(RedisKeys.record(id), 'id', id, 'revision', String(revision));
    },
  }),
};

const T0 = 1_800_000_000_000;
const DAY = '2027-01-15';
const KEY = 'key_0123456789abcdef';

function call(
  over: { id?: string; revision?: number; cost?: number; dailyLimit?: number; quota?: false } = {},
): CallCount {
  return {
    key: { id: over.id ?? KEY, revision: over.revision ?? 0 },
    budget: {
      throttler: 'key',
      storageKey: over.id ?? KEY,
      windowMs: 60_000,
      rate: 60,
      burst: 3,
    },
    nowMs: T0,
    quota:
      over.quota === false
        ? undefined
        : {
            day: DAY,
            dailyLimit: over.dailyLimit ?? 100,
            month: '2027-01',
            monthlyLimit: null,
            cost: over.cost ?? 1,
            tool: 'greet',
          },
  };
}

onBothBackends('the call counter (rate, then credits, in one count)', COUNTER, (current, kind) => {
  const OTHER = 'key_fedcba9876543210';
  beforeEach(async () => {
    await current().store.keyAt(KEY, 0);
    await current().store.keyAt(OTHER, 0);
  });

  it('counts the rate first: past the burst nothing more is counted, credits included', async () => {
    const { counter, usage } = current().store;
    const counted = [];
    for (let i = 0; i < 4; i++) counted.push(await counter.count(call({ cost: 2 })));
    expect(counted.map((c) => c.rate.taken)).toEqual([true, true, true, false]);
    expect(counted.map((c) => c.quota?.used)).toEqual([2, 4, 6, undefined]);
    expect(await usage.getUsage(KEY, DAY)).toBe(6);
  });

  it('keeps the rate count of a call its credits refuse, and counts no credits for it', async () => {
    const { counter, usage } = current().store;
    expect(await counter.count(call({ cost: 4, dailyLimit: 5 }))).toMatchObject({
      rate: { taken: true, remaining: 2 },
      quota: { allowed: true, used: 4 },
    });
    expect(await counter.count(call({ cost: 4, dailyLimit: 5 }))).toMatchObject({
      rate: { taken: true, remaining: 1 },
      quota: { allowed: false, used: 4, refused: 'daily' },
    });
    expect(await usage.getUsage(KEY, DAY)).toBe(4);
  });

  it('counts the rate alone when no credits are asked', async () => {
    const { counter, usage } = current().store;
    const counted = await counter.count(call({ quota: false }));
    expect(counted).toEqual({ rate: expect.objectContaining({ taken: true, remaining: 2 }) });
    expect(await usage.getUsage(KEY, DAY)).toBe(0);
  });

  it('takes exactly the burst and the credits that fit, however many calls arrive at once', async () => {
    const { counter, usage } = current().store;
    const counted = await Promise.all(
      Array.from({ length: 12 }, () => counter.count(call({ cost: 3, dailyLimit: 7 }))),
    );
    expect(counted.filter((c) => c.rate.taken)).toHaveLength(3);
    expect(counted.filter((c) => c.quota?.allowed)).toHaveLength(2);
    expect(await usage.getUsage(KEY, DAY)).toBe(6);
  });

  it('keeps each key its own bucket and its own credits', async () => {
    const { counter, usage } = current().store;
    for (let i = 0; i < 3; i++) await counter.count(call());
    expect((await counter.count(call())).rate.taken).toBe(false);
    const other = OTHER;
    expect(await counter.count(call({ id: other }))).toMatchObject({
      rate: { taken: true, remaining: 2 },
      quota: { used: 1 },
    });
    expect([await usage.getUsage(KEY, DAY), await usage.getUsage(other, DAY)]).toEqual([3, 1]);
  });

  if (kind === 'redis') {
    it('counts nothing for a call decided on a record that changed since, or is gone', async () => {
      const { counter, usage, keyAt } = current().store;
      await keyAt(KEY, 2);
      await expect(counter.count(call({ revision: 1 }))).rejects.toMatchObject({
        name: 'SubjectRecordChanged',
      });
      await expect(counter.count(call({ id: 'key_gone', revision: 0 }))).rejects.toMatchObject({
        name: 'SubjectRecordChanged',
      });
      expect(await usage.getUsage(KEY, DAY)).toBe(0);
      // On the record as it is now, the same call counts, its whole burst still there.
      expect(await counter.count(call({ revision: 2 }))).toMatchObject({
        rate: { taken: true, remaining: 2 },
        quota: { used: 1 },
      });
    });
  }
});
