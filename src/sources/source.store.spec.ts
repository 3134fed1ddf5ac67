import { onBothBackends } from '../../test/support/store-contract';
import type { SourceRecord } from './source.store';
import { SOURCE_STORE } from './source.stores';

const record = (name: string, fields: Record<string, unknown> = { kind: 'mcp' }): SourceRecord => ({
  name,
  fields,
  sealed: null,
  created_at: '2026-12-02T10:00:00.000Z',
  updated_at: '2026-12-02T10:00:00.000Z',
});

onBothBackends('sources made through the API', SOURCE_STORE, (current) => {
  it('keeps records by name, refuses a name taken and a store full, each write a new revision', async () => {
    const { store } = current();
    expect(await store.revision()).toBe(0);
    const sealed = {
      ...record('beta', { kind: 'mcp', url: 'https://x.example/mcp', include: [] }),
    };
    sealed.sealed = 'sealed:v1:abc';
    const first = await store.create(sealed, 2);
    expect(first).toBe(1);
    expect(await store.create(record('alpha'), 2)).toBe(2);
    expect(await store.create(record('alpha'), 5)).toBe('taken');
    expect(await store.create(record('gamma'), 2)).toBe('full');
    const listed = await store.list();
    expect(listed.map(({ name }) => name)).toEqual(['alpha', 'beta']);
    expect(listed[1]).toEqual({ ...sealed, version: 1 });
    expect(listed[0].version).toBe(2);
    expect(await store.revision()).toBe(2);
  });

  it('replaces and forgets a record, a missing one false, and the revision moves only on a write', async () => {
    const { store } = current();
    await store.create(record('alpha'), 10);
    const before = await store.revision();
    const changed = {
      ...record('alpha', { kind: 'openapi' }),
      updated_at: '2026-12-02T11:00:00.000Z',
    };
    expect(await store.update(changed)).toBe(before + 1);
    expect(await store.update(record('nothing'))).toBeUndefined();
    const [after] = await store.list();
    expect(after).toEqual({ ...changed, version: before + 1 });
    expect(await store.remove('nothing')).toBe(false);
    expect(await store.revision()).toBe(before + 1);
    expect(await store.remove('alpha')).toBe(true);
    expect(await store.list()).toEqual([]);
    expect(await store.revision()).toBe(before + 2);
  });

  it("shows one connection another's writes", async () => {
    const { store, another } = current();
    const other = await another();
    await other.create(record('shared'), 10);
    expect((await store.list()).map(({ name }) => name)).toEqual(['shared']);
    expect(await store.revision()).toBe(await other.revision());
  });
});
