import { onBothBackends } from '../../test/support/store-contract';
import { RunRecord, runStatus } from './run.store';
import { RUN_STORE } from './runs.stores';

const BASE = Date.parse('2026-11-27T08:00:00.000Z');
const MINUTE = 60_000;
const DAY = 86_400_000;

/** An instant `minutes` after 08:00 on the test's day. */
const at = (minutes: number) => new Date(BASE + minutes * MINUTE).toISOString();

/** A run id of the service's shape (`run_`, 12 hex of the time, 20 more), in time order. */
const idAt = (minutes: number, n = 0) =>
  `run_${(BASE + minutes * MINUTE).toString(16).padStart(12, '0')}${n.toString(16).padStart(20, '0')}`;

/** A run of `parent` made `minutes` after 08:00, lasting `ttl` minutes (a day unless said). */
function run(
  minutes: number,
  parent = 'key_aaaaaaaaaaaaaaaa',
  options: { n?: number; ttl?: number; kind?: 'key' | 'principal' } = {},
): RunRecord {
  const id = idAt(minutes, options.n);
  return {
    id,
    token_hash: `hash-of-${id}`,
    parent: { kind: options.kind ?? 'key', id: parent },
    budget: 100,
    scopes: ['services:read', 'services:execute:greet'],
    label: `run at ${minutes}`,
    metadata: { ticket: 'OPS-1', 'with space': 'ünïcode ✓' },
    created_at: at(minutes),
    expires_at: at(minutes + (options.ttl ?? 24 * 60)),
    ended_at: null,
    ended_reason: null,
  };
}

const ids = (runs: RunRecord[]) => runs.map((r) => r.id);

/**
 * The runs' store (docs/runs-and-ledger.md), on SQLite and on Redis alike: admission against the
 * most active runs a parent may have (the service's 1,000, here a small number: reaching 1,000
 * over HTTP is slow, so the cap is shown here), the lookups, the lists and their pages, changes,
 * the first end that stands, and the purge of what ended before a cutoff.
 */
onBothBackends('runs', RUN_STORE, (current) => {
  it('admits a run while its parent has fewer than maxActive active ones, and writes nothing past it', async () => {
    const { store } = current();
    const parent = 'key_aaaaaaaaaaaaaaaa';
    const first = run(0, parent);
    const second = run(1, parent);
    const third = run(2, parent);
    expect(await store.insert(first, 2)).toBe(true);
    expect(await store.insert(second, 2)).toBe(true);
    expect(await store.insert(third, 2)).toBe(false);
    // Nothing of the refused run is stored: no record, no lookup, no place in the lists.
    expect(await store.find(third.id)).toBeUndefined();
    expect(await store.findByHash(third.token_hash)).toBeUndefined();
    expect(ids(await store.list({ parentId: parent, limit: 10, now: at(2) }))).toEqual([
      second.id,
      first.id,
    ]);
    // Another parent has its own count.
    expect(await store.insert(run(2, 'key_bbbbbbbbbbbbbbbb', { n: 1 }), 2)).toBe(true);

    // An ended run frees its place at once.
    expect(await store.end(first.id, 'deleted', at(3))).toBeDefined();
    expect(await store.insert(run(4, parent), 2)).toBe(true);
    expect(await store.insert(run(5, parent), 2)).toBe(false);
  });

  it('admits exactly maxActive runs of many made at once on several connections', async () => {
    const { store, another } = current();
    const stores = [store, await another(), await another()];
    const admitted = await Promise.all(
      Array.from({ length: 12 }, (_, n) => stores[n % 3].insert(run(0, undefined, { n }), 5)),
    );
    expect(admitted.filter(Boolean)).toHaveLength(5);
    const listed = await store.list({ parentId: 'key_aaaaaaaaaaaaaaaa', limit: 100, now: at(0) });
    expect(listed).toHaveLength(5);
  });

  it('counts an expired run as no longer active', async () => {
    const { store } = current();
    const parent = 'prn_0123456789abcdef0123456789abcdef';
    expect(await store.insert(run(0, parent, { ttl: 10, kind: 'principal' }), 1)).toBe(true);
    // Still active at 9 minutes: no room.
    expect(await store.insert(run(9, parent, { kind: 'principal' }), 1)).toBe(false);
    // Expired at 10 (expires_at is not after now): room again, though nothing ended it.
    const later = run(10, parent, { kind: 'principal' });
    expect(await store.insert(later, 1)).toBe(true);
    expect(await store.find(later.id)).toEqual(later);
  });

  it('finds a run by id and by its token hash, from another connection too', async () => {
    const { store, another } = current();
    const record = run(0);
    await store.insert(record, 1000);
    expect(await store.find(record.id)).toEqual(record);
    expect(await store.findByHash(record.token_hash)).toEqual(record);
    const other = await another();
    expect(await other.findByHash(record.token_hash)).toEqual(record);
    expect(await store.find(idAt(99))).toBeUndefined();
    expect(await store.findByHash('hash-of-nothing')).toBeUndefined();
  });

  it('lists runs newest first, by parent and by status, in pages before a cursor', async () => {
    const { store } = current();
    const a = 'key_aaaaaaaaaaaaaaaa';
    const b = 'key_bbbbbbbbbbbbbbbb';
    // a: five runs, one a minute; those of minutes 0 and 1 last 3 and 5 minutes; b: one.
    const ttls = [3, 5, 24 * 60, 24 * 60, 24 * 60];
    const runs = ttls.map((ttl, m) => run(m, a, { ttl }));
    for (const r of runs) expect(await store.insert(r, 1000)).toBe(true);
    const ofB = run(2, b, { n: 7 });
    await store.insert(ofB, 1000);
    await store.end(runs[3].id, 'deleted', at(5));
    await store.end(runs[4].id, 'parent_disabled', at(5));
    // Ended by the service when its token came after its time: `expired` too.
    await store.end(runs[0].id, 'expired', at(4));
    const now = at(10);
    const list = (filter: Partial<Parameters<typeof store.list>[0]>) =>
      store.list({ limit: 100, now, ...filter }).then(ids);

    expect(await list({ parentId: a })).toEqual([...runs].reverse().map((r) => r.id));
    expect(await list({})).toEqual(
      [runs[4], runs[3], ofB, runs[2], runs[1], runs[0]].map((r) => r.id),
    );
    expect(await list({ parentId: b })).toEqual([ofB.id]);
    expect(await list({ parentId: 'key_cccccccccccccccc' })).toEqual([]);

    // At 10 minutes: minute 1's has run out (expired, never ended), minute 0's ended as expired.
    expect(await list({ parentId: a, status: 'active' })).toEqual([runs[2].id]);
    expect(await list({ parentId: a, status: 'ended' })).toEqual([runs[4].id, runs[3].id]);
    expect(await list({ parentId: a, status: 'expired' })).toEqual([runs[1].id, runs[0].id]);
    expect(await list({ status: 'active' })).toEqual([ofB.id, runs[2].id]);
    for (const r of await store.list({ limit: 100, now })) {
      expect(['active', 'ended', 'expired']).toContain(runStatus(r, now));
    }

    // Pages: `limit` at a time, each after the last id of the one before.
    expect(await list({ parentId: a, limit: 2 })).toEqual([runs[4].id, runs[3].id]);
    expect(await list({ parentId: a, limit: 2, before: runs[3].id })).toEqual([
      runs[2].id,
      runs[1].id,
    ]);
    expect(await list({ parentId: a, limit: 2, before: runs[1].id })).toEqual([runs[0].id]);
    expect(await list({ parentId: a, limit: 2, before: runs[0].id })).toEqual([]);
    expect(await list({ parentId: a, status: 'ended', limit: 1, before: runs[4].id })).toEqual([
      runs[3].id,
    ]);
    expect(await list({ parentId: a, status: 'expired', before: runs[2].id })).toEqual([
      runs[1].id,
      runs[0].id,
    ]);
  });

  it('finds the runs of a status beyond more than a chunk of others', async () => {
    const { store } = current();
    const parent = 'key_aaaaaaaaaaaaaaaa';
    // The oldest ended, then 250 active ones newer: the list reads past all of them.
    const oldest = run(0, parent);
    await store.insert(oldest, 1000);
    await store.end(oldest.id, 'deleted', at(1));
    for (let n = 0; n < 250; n++) await store.insert(run(1, parent, { n }), 1000);
    const ended = await store.list({ parentId: parent, status: 'ended', limit: 10, now: at(2) });
    expect(ids(ended)).toEqual([oldest.id]);
    const active = await store.list({ parentId: parent, status: 'active', limit: 300, now: at(2) });
    expect(active).toHaveLength(250);
  });

  it('changes a budget and a label, and nothing of an unknown run', async () => {
    const { store, another } = current();
    const record = run(0);
    await store.insert(record, 1000);
    const changed = await store.update(record.id, { budget: 7, label: 'renamed' });
    expect(changed).toEqual({ ...record, budget: 7, label: 'renamed' });
    expect(await (await another()).find(record.id)).toEqual(changed);
    expect(await store.update(record.id, { budget: 9 })).toEqual({ ...changed, budget: 9 });
    expect(await store.update(record.id, {})).toEqual({ ...changed, budget: 9 });
    expect(await store.findByHash(record.token_hash)).toEqual({ ...changed, budget: 9 });
    expect(await store.update(idAt(99), { budget: 1 })).toBeUndefined();
    expect(await store.find(idAt(99))).toBeUndefined();
  });

  it('extends an active run: its expiry, its scopes and its place among the active follow', async () => {
    const { store, another } = current();
    const parent = 'prn_0123456789abcdef0123456789abcdef';
    const record = run(0, parent, { ttl: 10, kind: 'principal' });
    await store.insert(record, 1);
    const lease = { expires_at: at(60), scopes: ['services:execute:greet'] };
    const extended = await store.extend(record.id, lease, at(5));
    expect(extended).toEqual({ ...record, ...lease });
    expect(await (await another()).findByHash(record.token_hash)).toEqual(extended);
    // Active past its first expiry: no room for another at 30 minutes, room at 60.
    expect(await store.insert(run(30, parent, { kind: 'principal' }), 1)).toBe(false);
    expect(
      ids(await store.list({ parentId: parent, status: 'active', limit: 5, now: at(30) })),
    ).toEqual([record.id]);
    expect(await store.purge(at(59), 10)).toEqual([]);
    expect(await store.insert(run(60, parent, { kind: 'principal' }), 1)).toBe(true);
  });

  it('leaves a run that is not active as it was: expired, ended, or unknown', async () => {
    const { store } = current();
    const expired = run(0, undefined, { ttl: 10 });
    const ended = run(1);
    for (const r of [expired, ended]) await store.insert(r, 1000);
    const after = await store.end(ended.id, 'deleted', at(2));
    const lease = { expires_at: at(600), scopes: ['services:read'] };
    expect(await store.extend(expired.id, lease, at(10))).toBeUndefined();
    expect(await store.extend(ended.id, lease, at(3))).toBeUndefined();
    expect(await store.extend(idAt(99), lease, at(3))).toBeUndefined();
    expect(await store.find(expired.id)).toEqual(expired);
    expect(await store.find(ended.id)).toEqual(after);
    expect(await store.find(idAt(99))).toBeUndefined();
    expect(ids(await store.purge(at(11), 10)).sort()).toEqual([expired.id, ended.id].sort());
  });

  it('ends a run once: the first end stands, from whichever connection', async () => {
    const { store, another } = current();
    const record = run(0);
    await store.insert(record, 1000);
    const other = await another();
    const ended = await store.end(record.id, 'parent_revoked', at(2));
    expect(ended).toEqual({ ...record, ended_at: at(2), ended_reason: 'parent_revoked' });
    expect(await other.end(record.id, 'deleted', at(3))).toBeUndefined();
    expect(await store.end(record.id, 'expired', at(4))).toBeUndefined();
    expect(await other.find(record.id)).toEqual(ended);
    expect(await other.findByHash(record.token_hash)).toEqual(ended);
    expect(await store.end(idAt(99), 'deleted', at(2))).toBeUndefined();
  });

  it('ends a run once when two connections end it at the same time', async () => {
    const { store, another } = current();
    const record = run(0);
    await store.insert(record, 1000);
    const stores = [store, await another(), await another()];
    const reasons = ['deleted', 'parent_revoked', 'parent_disabled'] as const;
    const results = await Promise.all(
      stores.map((s, i) => s.end(record.id, reasons[i], at(1 + i))),
    );
    const winners = results.filter((r) => r !== undefined);
    expect(winners).toHaveLength(1);
    expect(await store.find(record.id)).toEqual(winners[0]);
  });

  it('purges only the runs that ended or expired before the cutoff, with their lookups', async () => {
    const { store } = current();
    const parent = 'key_aaaaaaaaaaaaaaaa';
    const cutoff = at(100);
    const endedBefore = run(0, parent);
    const expiredBefore = run(1, parent, { ttl: 10 });
    const endedAfter = run(2, parent);
    const active = run(3, parent);
    const expiresAfter = run(4, parent, { ttl: 200 });
    for (const r of [endedBefore, expiredBefore, endedAfter, active, expiresAfter]) {
      await store.insert(r, 1000);
    }
    await store.end(endedBefore.id, 'deleted', at(50));
    await store.end(endedAfter.id, 'deleted', at(150));

    const purged = await store.purge(cutoff, 100);
    expect(ids(purged).sort()).toEqual([endedBefore.id, expiredBefore.id].sort());
    expect(purged.find((r) => r.id === endedBefore.id)).toMatchObject({ ended_reason: 'deleted' });
    for (const gone of [endedBefore, expiredBefore]) {
      expect(await store.find(gone.id)).toBeUndefined();
      expect(await store.findByHash(gone.token_hash)).toBeUndefined();
    }
    for (const kept of [endedAfter, active, expiresAfter]) {
      expect(await store.find(kept.id)).toEqual(await store.findByHash(kept.token_hash));
      expect(await store.find(kept.id)).toBeDefined();
    }
    expect(ids(await store.list({ parentId: parent, limit: 10, now: at(5) }))).toEqual(
      [expiresAfter, active, endedAfter].map((r) => r.id),
    );
    expect(ids(await store.list({ limit: 10, now: at(5) }))).toEqual(
      [expiresAfter, active, endedAfter].map((r) => r.id),
    );
    // Nothing more before the cutoff: a second purge forgets nothing.
    expect(await store.purge(cutoff, 100)).toEqual([]);
  });

  it('purges at most `limit` runs a call, the rest on the next', async () => {
    const { store } = current();
    for (let n = 0; n < 3; n++) {
      const r = run(0, 'key_aaaaaaaaaaaaaaaa', { n });
      await store.insert(r, 1000);
      await store.end(r.id, 'deleted', at(1));
    }
    expect(await store.purge(at(2), 2)).toHaveLength(2);
    expect(await store.purge(at(2), 2)).toHaveLength(1);
    expect(await store.purge(at(2), 2)).toHaveLength(0);
  });

  /**
   * RunsService.purge asks for 500 runs a step and stops at the first step that forgets fewer: a
   * step that forgets fewer than its limit must mean that nothing more is due.
   */
  it('forgets the runs that are due however many older ones are not', async () => {
    const { store } = current();
    const parent = 'key_aaaaaaaaaaaaaaaa';
    // 201 runs of a week, still active, made before 50 that ended at once.
    for (let n = 0; n < 201; n++) await store.insert(run(0, parent, { n, ttl: 7 * 24 * 60 }), 1e6);
    for (let n = 0; n < 50; n++) {
      const r = run(1, parent, { n });
      await store.insert(r, 1e6);
      await store.end(r.id, 'deleted', at(2));
    }
    const cutoff = new Date(BASE + DAY).toISOString();
    expect((await store.purge(cutoff, 500)).length).toBe(50);
    const ended = await store.list({ parentId: parent, status: 'ended', limit: 10, now: at(3) });
    expect(ended).toEqual([]);
  });

  it('forgets `limit` runs in one call when more than that are due', async () => {
    const { store } = current();
    for (let n = 0; n < 250; n++) {
      const r = run(0, 'key_aaaaaaaaaaaaaaaa', { n });
      await store.insert(r, 1e6);
      await store.end(r.id, 'deleted', at(1));
    }
    expect((await store.purge(at(2), 240)).length).toBe(240);
    expect((await store.purge(at(2), 240)).length).toBe(10);
  });
});
