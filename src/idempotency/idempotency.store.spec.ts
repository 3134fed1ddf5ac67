import { onBothBackends } from '../../test/support/store-contract';
import type { IdempotencyCaps, IdempotencyClaim } from './idempotency.store';
import { IDEMPOTENCY_STORE } from './idempotency.stores';

const KEY = 'key_0123456789abcdef';
const ROOM: IdempotencyCaps = { entries: 100, bytes: 1_000_000 };
const NOW = 1_800_000_000_000;
const claim = (scope: string, fingerprint = 'f1', token = 't1'): IdempotencyClaim => ({
  keyId: KEY,
  scope,
  fingerprint,
  token,
  markerBytes: 10,
});

onBothBackends('idempotency entries', IDEMPOTENCY_STORE, (current) => {
  it('starts a call once, says in progress while it runs, then replays its kept answer', async () => {
    const { store, another } = current();
    const other = await another();
    expect(await store.beginIdempotent(claim('greet:a'), NOW, NOW + 60_000, ROOM)).toEqual({
      state: 'started',
    });
    expect(
      await other.beginIdempotent(claim('greet:a', 'f1', 't2'), NOW, NOW + 60_000, ROOM),
    ).toEqual({ state: 'in_progress' });
    await store.completeIdempotent(claim('greet:a'), 200, '{"message":"hi"}', NOW + 3_600_000, 16);
    expect(
      await other.beginIdempotent(claim('greet:a', 'f1', 't3'), NOW, NOW + 60_000, ROOM),
    ).toEqual({ state: 'done', status: 200, body: '{"message":"hi"}' });
    expect(
      await store.beginIdempotent(claim('greet:a', 'f2', 't4'), NOW, NOW + 60_000, ROOM),
    ).toEqual({ state: 'mismatch' });
  });

  it('lets a released or expired marker start again, and forgets a kept answer once it expires', async () => {
    const { store } = current();
    await store.beginIdempotent(claim('greet:b'), NOW, NOW + 60_000, ROOM);
    await store.releaseIdempotent(claim('greet:b'));
    expect(
      await store.beginIdempotent(claim('greet:b', 'f1', 't2'), NOW, NOW + 60_000, ROOM),
    ).toEqual({ state: 'started' });
    // The marker of t2 is past its time a minute later: the call starts again.
    const later = NOW + 120_000;
    expect(
      await store.beginIdempotent(claim('greet:b', 'f1', 't3'), later, later + 60_000, ROOM),
    ).toEqual({ state: 'started' });
    await store.completeIdempotent(claim('greet:b', 'f1', 't3'), 200, '{}', later + 1_000, 2);
    expect(
      await store.beginIdempotent(
        claim('greet:b', 'f1', 't4'),
        later + 2_000,
        later + 60_000,
        ROOM,
      ),
    ).toEqual({ state: 'started' });
  });

  it('refuses a new entry when the key holds its entries, until the oldest expires', async () => {
    const { store } = current();
    const two: IdempotencyCaps = { entries: 2, bytes: 1_000_000 };
    for (const scope of ['greet:1', 'greet:2']) {
      await store.beginIdempotent(claim(scope), NOW, NOW + 60_000, two);
      await store.completeIdempotent(claim(scope), 200, '{}', NOW + 10_000, 2);
    }
    expect(await store.fullUntil(KEY, NOW, two)).toBe(NOW + 10_000);
    expect(await store.beginIdempotent(claim('greet:3'), NOW, NOW + 60_000, two)).toEqual({
      state: 'full',
      retryAtMs: NOW + 10_000,
    });
    expect(await store.fullUntil(KEY, NOW + 10_001, two)).toBeUndefined();
    expect(await store.beginIdempotent(claim('greet:3'), NOW + 10_001, NOW + 70_000, two)).toEqual({
      state: 'started',
    });
  });

  it('purges the expired entries of every key, and only those', async () => {
    const { store } = current();
    await store.beginIdempotent(claim('greet:old'), NOW, NOW + 60_000, ROOM);
    await store.completeIdempotent(claim('greet:old'), 200, '{}', NOW + 1_000, 2);
    await store.beginIdempotent(claim('greet:new'), NOW, NOW + 60_000, ROOM);
    await store.completeIdempotent(claim('greet:new'), 200, '{}', NOW + 3_600_000, 2);
    expect(await store.purgeIdempotent(NOW + 2_000)).toBe(1);
    expect(
      await store.beginIdempotent(claim('greet:new', 'f1', 't9'), NOW + 2_000, NOW + 60_000, ROOM),
    ).toEqual({ state: 'done', status: 200, body: '{}' });
  });
});
