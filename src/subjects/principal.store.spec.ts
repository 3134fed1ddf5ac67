import { onBothBackends } from '../../test/support/store-contract';
import type { NewPrincipalRecord, PrincipalRecord } from './principal.store';
import { PRINCIPAL_STORE } from './subjects.stores';

const seen = (i: number, at = `2026-11-2${i}T08:00:00.000Z`): NewPrincipalRecord => ({
  id: `prn_${String(i).padStart(32, '0')}`,
  issuer: 'https://issuer.example',
  subject: `user-${i}`,
  client_id: 'agent',
  first_seen_at: at,
  last_seen_at: at,
});

onBothBackends('OAuth principals', PRINCIPAL_STORE, (current) => {
  it('makes one record of two first sights at once, on two connections', async () => {
    const { store, another } = current();
    const other = await another();
    const [a, b] = await Promise.all([
      store.ensurePrincipal(seen(1), { fresh: true }),
      other.ensurePrincipal({ ...seen(1), client_id: 'other' }, { fresh: true }),
    ]);
    expect(a?.id).toBe(seen(1).id);
    expect(b?.first_seen_at).toBe(a?.first_seen_at);
    expect(b?.client_id).toBe(a?.client_id);
    expect(await store.countPrincipals()).toBe(1);
    expect(await store.findPrincipal(seen(1).id)).toMatchObject({
      ...seen(1),
      client_id: a?.client_id,
      plan: null,
      enabled: true,
      scopes: null,
    });
  });

  it('refuses a new principal past `max`, and still answers an existing one', async () => {
    const { store } = current();
    await store.ensurePrincipal(seen(1), { fresh: true, max: 2 });
    await store.ensurePrincipal(seen(2), { fresh: true, max: 2 });
    expect(await store.ensurePrincipal(seen(3), { fresh: true, max: 2 })).toBeUndefined();
    expect(await store.ensurePrincipal(seen(1), { fresh: true, max: 2 })).toMatchObject({
      id: seen(1).id,
    });
    expect(await store.countPrincipals()).toBe(2);
  });

  it('lists in first-seen order by pages, records scopes as a union and settings, deletes once', async () => {
    const { store } = current();
    for (const i of [3, 1, 2]) await store.ensurePrincipal(seen(i), { fresh: true });
    const first = await store.listPrincipals({ limit: 2 });
    expect(first.map((p) => p.subject)).toEqual(['user-1', 'user-2']);
    expect((await store.listPrincipals({ after: first[1] })).map((p) => p.subject)).toEqual([
      'user-3',
    ]);

    await store.addPrincipalScopes(seen(1).id, ['services:execute']);
    await store.addPrincipalScopes(seen(1).id, ['admin:read', 'services:execute']);
    expect(await store.updatePrincipal(seen(1).id, { plan: 'pro', enabled: false })).toMatchObject({
      plan: 'pro',
      enabled: false,
      scopes: ['admin:read', 'services:execute'],
    });
    expect(await store.updatePrincipal(seen(9).id, { plan: 'pro' })).toBeUndefined();

    const [a, b] = await Promise.all([
      store.deletePrincipal(seen(2).id),
      store.deletePrincipal(seen(2).id),
    ]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(await store.findPrincipal(seen(2).id)).toBeUndefined();
  });

  it('purges the idle principals with no operator setting, and only those', async () => {
    const { store } = current();
    for (const i of [1, 2, 3]) await store.ensurePrincipal(seen(i), { fresh: true });
    await store.updatePrincipal(seen(1).id, { daily_limit: 5 });
    await store.touchPrincipal(seen(3).id, {
      at: '2026-11-27T08:00:00.000Z',
      clientId: 'agent',
      tokenPlan: null,
    });
    const purged: string[] = [];
    for await (const ids of store.purgeIdlePrincipals('2026-11-25T00:00:00.000Z')) {
      purged.push(...ids);
    }
    expect(purged).toEqual([seen(2).id]);
    expect((await store.listPrincipals()).map((p) => p.subject)).toEqual(['user-1', 'user-3']);
  });

  it('keeps an external id: from the first sight when named, changed, cleared, merged by put', async () => {
    const { store } = current();
    await store.ensurePrincipal(seen(1), { fresh: true });
    await store.ensurePrincipal({ ...seen(2), external_id: 'acct_4711' }, { fresh: true });
    expect(await store.findPrincipal(seen(1).id)).toMatchObject({ external_id: null });
    expect(await store.findPrincipal(seen(2).id)).toMatchObject({ external_id: 'acct_4711' });
    // A later sight naming another leaves the record as it is (its service decides on a change).
    const again = await store.ensurePrincipal(
      { ...seen(2), external_id: 'acct_0815' },
      { fresh: true },
    );
    expect(again?.external_id).toBe('acct_4711');
    expect(await store.updatePrincipal(seen(1).id, { external_id: 'acct_0815' })).toMatchObject({
      external_id: 'acct_0815',
    });
    expect(await store.updatePrincipal(seen(2).id, { external_id: null })).toMatchObject({
      external_id: null,
    });
    expect((await store.listPrincipals()).map((p) => p.external_id)).toEqual(['acct_0815', null]);
    const record = (await store.findPrincipal(seen(1).id)) as PrincipalRecord;
    await store.putPrincipal({ ...record, external_id: 'acct_9' });
    expect(await store.findPrincipal(seen(1).id)).toMatchObject({ external_id: 'acct_9' });
  });
});
