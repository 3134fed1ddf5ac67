import { newKeyRecord } from '../../test/support/key-records';
import { onBothBackends } from '../../test/support/store-contract';
import type { NewKeyRecord } from './key.store';
import { KEY_STORE } from './subjects.stores';
import { KeySearch } from './key-search';

const key = (i: number, created_at = `2026-11-27T08:00:0${i}.000Z`): NewKeyRecord =>
  newKeyRecord(i, `key_00000000000000${String(i).padStart(2, '0')}`, created_at);

onBothBackends('API keys', KEY_STORE, (current) => {
  it('finds a key by its hash and its id, and lists keys in (created_at, id) order by pages', async () => {
    const { store } = current();
    for (const i of [3, 1, 2]) await store.insertKey(key(i));
    expect(await store.findKeyByHash('hash-2', { fresh: true })).toMatchObject(key(2));
    expect(await store.findKeyById(key(3).id)).toMatchObject(key(3));
    expect(await store.findKeyByHash('hash-9')).toBeUndefined();
    expect(await store.findKeyById('key_0000000000000099')).toBeUndefined();
    expect((await store.listKeys()).map((k) => k.name)).toEqual(['key-1', 'key-2', 'key-3']);
    const first = await store.listKeys({ limit: 2 });
    expect(first.map((k) => k.name)).toEqual(['key-1', 'key-2']);
    const rest = await store.listKeys({ after: first[1], limit: 2 });
    expect(rest.map((k) => k.name)).toEqual(['key-3']);
  });

  it('records a touch, read back at once by hash and by id, without dropping the copies of other keys', async () => {
    const { store, another } = current();
    for (const i of [1, 2]) await store.insertKey(key(i));
    const other = await another();
    const before = await store.findKeyByHash('hash-1');
    expect(await store.findKeyByHash('hash-2')).toMatchObject({ last_used_at: null });
    expect(await store.findKeyById(key(2).id)).toMatchObject({ last_used_at: null });

    await store.touchKey(key(2).id, '2026-11-27T09:00:00.000Z');
    for (const reader of [store, other]) {
      expect(await reader.findKeyByHash('hash-2')).toMatchObject({
        id: key(2).id,
        last_used_at: '2026-11-27T09:00:00.000Z',
      });
      expect(await reader.findKeyById(key(2).id)).toMatchObject({
        last_used_at: '2026-11-27T09:00:00.000Z',
      });
    }
    // A touch is not a change of a key's settings: the copy kept of another key stays in use.
    expect(await store.findKeyByHash('hash-1')).toBe(before);
    await store.touchKey('key_0000000000000099', '2026-11-27T09:00:00.000Z');
    expect(await store.findKeyById('key_0000000000000099')).toBeUndefined();
  });

  it('inserts one first key when two connections race on an empty store', async () => {
    const { store, another } = current();
    const other = await another();
    const inserted = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? other : store).insertKeyIfNone(key(i))),
    );
    expect(inserted.filter(Boolean)).toHaveLength(1);
    const winner = key(inserted.indexOf(true));
    expect(await store.listKeys()).toEqual([expect.objectContaining(winner)]);
    expect(await other.listKeys()).toEqual([expect.objectContaining(winner)]);
    expect(await store.insertKeyIfNone(key(5))).toBe(false);
  });

  it('changes settings, gives a new secret keeping the last one for its grace, revokes once', async () => {
    const { store } = current();
    await store.insertKey(key(1));
    expect(await store.updateKey(key(1).id, { name: 'renamed', enabled: false })).toMatchObject({
      name: 'renamed',
      enabled: false,
    });
    expect(await store.updateKey('key_0000000000000099', { name: 'x' })).toBeUndefined();
    // In the future whenever the test runs: Redis keeps a previous secret's lookup until then.
    const grace = new Date(Date.now() + 24 * 3_600_000).toISOString();
    const rotation = (hash: string, previous: string | null) => ({
      hash,
      prefix: 'sk_new',
      previous_hash: previous,
      previous_key_expires_at: previous && grace,
    });
    await store.rotateKey(key(1).id, rotation('hash-new', 'hash-1'));
    expect(await store.findKeyByHash('hash-new', { fresh: true })).toMatchObject({
      id: key(1).id,
      previous_hash: 'hash-1',
    });
    expect(await store.findKeyByHash('hash-1', { fresh: true })).toMatchObject({ id: key(1).id });
    await store.rotateKey(key(1).id, rotation('hash-newer', 'hash-new'));
    expect(await store.findKeyByHash('hash-1', { fresh: true })).toBeUndefined();
    expect(await store.findKeyByHash('hash-new', { fresh: true })).toMatchObject({ id: key(1).id });
    expect(await store.rotateKey('key_0000000000000099', rotation('h', null))).toBeUndefined();

    expect(await store.revokeKey(key(1).id, '2026-11-27T09:00:00.000Z')).toBe(true);
    expect(await store.revokeKey(key(1).id, '2026-11-27T10:00:00.000Z')).toBe(true);
    expect(await store.findKeyById(key(1).id)).toMatchObject({
      revoked_at: '2026-11-27T09:00:00.000Z',
    });
    expect(await store.revokeKey('key_0000000000000099', '2026-11-27T09:00:00.000Z')).toBe(false);
  });

  it('keeps an external id: none by default, given at insertion, changed, cleared, searched', async () => {
    const { store } = current();
    await store.insertKey(key(1));
    await store.insertKey({ ...key(2), external_id: 'acct_4711' });
    await store.insertKey({ ...key(3), external_id: 'acct_0815' });
    expect(await store.findKeyById(key(1).id)).toMatchObject({ external_id: null });
    expect(await store.findKeyByHash('hash-2', { fresh: true })).toMatchObject({
      external_id: 'acct_4711',
    });
    expect(await store.updateKey(key(1).id, { external_id: 'acct_4711' })).toMatchObject({
      external_id: 'acct_4711',
    });
    expect(await store.updateKey(key(3).id, { external_id: null })).toMatchObject({
      external_id: null,
    });
    expect((await store.listKeys()).map((k) => k.external_id)).toEqual([
      'acct_4711',
      'acct_4711',
      null,
    ]);
    const search = new KeySearch(store, 5000);
    const found = await search.search({ external_id: 'acct_4711' }, { limit: 10 }, new Date());
    expect(found.matches.map((k) => k.id)).toEqual([key(1).id, key(2).id]);
    const none = await search.search({ external_id: 'acct_0815' }, { limit: 10 }, new Date());
    expect(none.matches).toEqual([]);
  });
});
