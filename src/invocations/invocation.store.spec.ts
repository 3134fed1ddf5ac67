import { onBothBackends } from '../../test/support/store-contract';
import type { RedisClient } from '../kernel/store/redis/redis.connection';
import { indexMember, RedisKeys } from '../kernel/store/redis/redis.keys';
import type { StoreMakers } from '../kernel/store/store.module';
import type { InvocationRecord, InvocationStore } from './invocation.store';
import { INVOCATION_STORE } from './invocation.stores';

const CALLER = 'key_0123456789abcdef';
const NOW = Date.parse('2026-11-27T08:00:00.000Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();
const record = (n: number, over: Partial<InvocationRecord> = {}): InvocationRecord => ({
  id: `inv_${String(n).padStart(32, '0')}`,
  caller_id: CALLER,
  tool: 'slow',
  status: 'queued',
  progress: null,
  result: null,
  error: null,
  error_kind: null,
  created_at: at(n * 1000),
  started_at: null,
  finished_at: null,
  instance: 'instance-a',
  cancel_requested: false,
  expires_ms: null,
  charged_day: '2026-11-27',
  charged_credits: 1,
  idempotency_key: null,
  charge_entry: null,
  ...over,
});

onBothBackends('long-running calls', INVOCATION_STORE, (current) => {
  it('moves a call on once: a late writer from a status it left loses', async () => {
    const { store, another } = current();
    const other = await another();
    await store.create(record(1));
    expect(
      await store.update(record(1).id, { status: 'running', started_at: at(1500) }, ['queued']),
    ).toMatchObject({ status: 'running', started_at: at(1500) });
    const ends = await Promise.all([
      store.update(record(1).id, { status: 'succeeded', result: { ok: true } }, ['running']),
      other.update(record(1).id, { status: 'cancelled' }, ['queued', 'running']),
    ]);
    expect(ends.filter(Boolean)).toHaveLength(1);
    const final = await other.get(record(1).id);
    expect(final?.status).toBe(ends.find(Boolean)?.status);
    expect(
      await store.update(record(1).id, { status: 'failed' }, ['queued', 'running']),
    ).toBeUndefined();
    expect(await store.get('inv_ffffffffffffffffffffffffffffffff')).toBeUndefined();
  });

  it("lists a caller's calls and everyone's newest first, by status and by pages", async () => {
    const { store } = current();
    for (const n of [1, 2, 3]) await store.create(record(n));
    await store.create(record(4, { caller_id: 'prn_' + '0'.repeat(32) }));
    await store.update(record(2).id, { status: 'running' }, ['queued']);
    const mine = await store.list(CALLER, { limit: 2 });
    expect(mine.map((r) => r.id)).toEqual([record(3).id, record(2).id]);
    expect((await store.list(CALLER, { after: mine[1], limit: 10 })).map((r) => r.id)).toEqual([
      record(1).id,
    ]);
    expect((await store.list(CALLER, { status: 'running', limit: 10 })).map((r) => r.id)).toEqual([
      record(2).id,
    ]);
    expect((await store.listAll({ limit: 10 })).map((r) => r.id)).toEqual(
      [4, 3, 2, 1].map((n) => record(n).id),
    );
  });

  it('takes the calls of an instance whose lease lapsed for orphans, and only those', async () => {
    // Leases run on the clock of the backend (Redis expires its keys by its own): real times here.
    const { store } = current();
    const now = Date.now();
    const ago = (ms: number) => new Date(now - ms).toISOString();
    await store.create(record(1, { instance: 'gone', created_at: ago(60_000) }));
    await store.create(record(2, { instance: 'alive', created_at: ago(60_000) }));
    await store.create(
      record(3, { instance: 'gone', status: 'succeeded', created_at: ago(60_000) }),
    );
    await store.create(record(4, { instance: 'gone', created_at: ago(1_000) }));
    await store.renew('gone', now - 1_000);
    await store.renew('alive', now + 60_000);
    expect(await store.alive('gone', now)).toBe(false);
    expect(await store.alive('alive', now)).toBe(true);
    // A call younger than `createdBefore` is never taken for an orphan.
    expect((await store.orphans(now, ago(30_000), 10)).map((r) => r.id)).toEqual([record(1).id]);
  });

  it('marks a cancel for the instance running the call, and forgets calls past their time', async () => {
    const { store } = current();
    await store.create(record(1));
    await store.create(record(2));
    await store.requestCancel(record(2).id);
    expect(await store.cancelsAmong([record(1).id, record(2).id])).toEqual([record(2).id]);
    expect((await store.get(record(2).id))?.cancel_requested).toBe(true);
    await store.update(
      record(1).id,
      { status: 'succeeded', finished_at: at(2000), expires_ms: NOW + 5_000 },
      ['queued'],
    );
    expect(await store.purge(NOW + 6_000)).toBe(1);
    expect(await store.get(record(1).id)).toBeUndefined();
    expect(await store.get(record(2).id)).toBeDefined();
  });
});

/** The store, and on Redis its connection, to take a write out by hand. */
const WITH_CONNECTION: StoreMakers<{ store: InvocationStore; redis?: RedisClient }> = {
  sqlite: async (sqlite) => ({ store: await INVOCATION_STORE.sqlite(sqlite) }),
  redis: async (redis) => ({ store: await INVOCATION_STORE.redis(redis), redis: redis.client }),
};

onBothBackends('long-running calls left half-written', WITH_CONNECTION, (current, kind) => {
  // On a Cluster a record's writes go to several slots, not at once: a process killed between
  // them leaves a call its sweep finds (the running calls' hash) but its lists do not. (SQLite
  // writes a call in one transaction: there the lists never lose it.)
  it('lists a call the sweep takes for an orphan, even one its lists had lost', async () => {
    const { store, redis } = current().store;
    const now = Date.now();
    const lost = record(1, { instance: 'gone', created_at: new Date(now - 60_000).toISOString() });
    await store.create(lost);
    if (redis) {
      expect(await redis.zrem(RedisKeys.invocationsOf(CALLER), indexMember(lost))).toBe(1);
      expect(await redis.zrem(RedisKeys.allInvocations, indexMember(lost))).toBe(1);
      expect(await store.list(CALLER, { limit: 10 })).toEqual([]);
    }
    await store.renew('gone', now - 1_000);

    const orphans = await store.orphans(now, new Date(now - 30_000).toISOString(), 10);
    expect(orphans.map((r) => r.id)).toEqual([lost.id]);
    expect((await store.list(CALLER, { limit: 10 })).map((r) => r.id)).toEqual([lost.id]);
    expect((await store.listAll({ limit: 10 })).map((r) => r.id)).toEqual([lost.id]);
  });

  if (kind === 'redis') {
    // The sweep finds calls through the running calls' hash only: a record written without its
    // entry there would stay queued for ever. So that entry comes first, and nothing without it.
    it('writes nothing of a call whose entry among the running calls could not be written', async () => {
      const { store, redis } = current().store;
      await redis!.set(RedisKeys.activeInvocations, 'not a hash');
      await expect(store.create(record(1))).rejects.toThrow();
      expect(await store.get(record(1).id)).toBeUndefined();
      expect(await store.list(CALLER, { limit: 10 })).toEqual([]);
      expect(await store.listAll({ limit: 10 })).toEqual([]);
    });
  }
});
