import { onBothBackends } from '../../test/support/store-contract';
import type { AuditEntry } from './audit.store';
import { AUDIT_STORE } from './audit.stores';

const entry = (at: string, target: string): Omit<AuditEntry, 'id'> => ({
  at,
  actor_key_id: 'key_0123456789abcdef',
  actor_principal_id: null,
  action: 'api_key.update',
  target,
  request_id: null,
  details: { enabled: { from: true, to: false } },
});
const LONG_AGO = '2000-01-01T00:00:00.000Z';

onBothBackends('the audit trail', AUDIT_STORE, (current) => {
  it('gives each entry a larger id than the last, and lists them newest first, as appended', async () => {
    const { store } = current();
    const first = await store.appendAudit(entry('2026-11-27T08:00:00.000Z', 'a'), LONG_AGO);
    const second = await store.appendAudit(entry('2026-11-27T08:00:01.000Z', 'b'), LONG_AGO);
    expect(second.id).toBeGreaterThan(first.id);
    expect(await store.listAudit({ limit: 10, since: LONG_AGO })).toEqual([second, first]);
    expect(first).toMatchObject(entry('2026-11-27T08:00:00.000Z', 'a'));
  });

  it('pages by `before` and `limit`, and leaves out what is older than `since`', async () => {
    const { store } = current();
    const all: AuditEntry[] = [];
    for (let i = 0; i < 5; i++) {
      all.push(await store.appendAudit(entry(`2026-11-2${i}T00:00:00.000Z`, `t${i}`), LONG_AGO));
    }
    const newest = [...all].reverse();
    expect(await store.listAudit({ limit: 2, since: LONG_AGO })).toEqual(newest.slice(0, 2));
    expect(await store.listAudit({ before: newest[1].id, limit: 2, since: LONG_AGO })).toEqual(
      newest.slice(2, 4),
    );
    expect(
      (await store.listAudit({ limit: 10, since: '2026-11-22T00:00:00.000Z' })).map(
        (e) => e.target,
      ),
    ).toEqual(['t4', 't3', 't2']);
  });

  it('forgets entries older than `keepSince` when it appends, on every connection', async () => {
    const { store, another } = current();
    await store.appendAudit(entry('2026-10-01T00:00:00.000Z', 'old'), LONG_AGO);
    const kept = await store.appendAudit(
      entry('2026-11-27T00:00:00.000Z', 'new'),
      '2026-11-01T00:00:00.000Z',
    );
    expect(await store.listAudit({ limit: 10, since: LONG_AGO })).toEqual([kept]);
    expect(await (await another()).listAudit({ limit: 10, since: LONG_AGO })).toEqual([kept]);
  });
});
