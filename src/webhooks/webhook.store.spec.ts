import { onBothBackends } from '../../test/support/store-contract';
import { WEBHOOK_STORE } from './webhooks.stores';
import type { WebhookDelivery, WebhookEndpoint } from './webhook.store';

const endpoint = (id: string, created_at = '2026-11-27T08:00:00.000Z'): WebhookEndpoint => ({
  id,
  url: `https://hooks.example/${id}`,
  events: ['*'],
  description: null,
  enabled: true,
  disabled_reason: null,
  secrets: [{ value: 'whsec_c2VjcmV0', expires_at: null }],
  failing_since: null,
  created_at,
  updated_at: created_at,
});

const delivery = (id: string, endpointId: string, due: string): WebhookDelivery => ({
  id,
  endpoint_id: endpointId,
  event_id: `msg_${id}`,
  type: 'webhook.test',
  payload: JSON.stringify({ id: `msg_${id}`, type: 'webhook.test', data: {} }),
  attempt: 0,
  status: 'pending',
  response_status: null,
  error: null,
  at: '2026-11-27T08:00:00.000Z',
  last_attempt_at: null,
  next_attempt_at: due,
});

const T0 = '2026-11-27T08:00:00.000Z';
const T1 = '2026-11-27T08:00:01.000Z';
const T2 = '2026-11-27T08:00:02.000Z';
const LATER = '2026-11-27T09:00:00.000Z';

onBothBackends('webhook endpoints and their outbox', WEBHOOK_STORE, (current) => {
  it('stores endpoints up to the maximum, lists them oldest first, changes and deletes them', async () => {
    const { store, another } = current();
    expect(await store.createEndpoint(endpoint('wh_a', T0), 2)).toBe(true);
    expect(await store.createEndpoint(endpoint('wh_b', T1), 2)).toBe(true);
    expect(await store.createEndpoint(endpoint('wh_c', T2), 2)).toBe(false);
    expect((await store.listEndpoints()).map((e) => e.id)).toEqual(['wh_a', 'wh_b']);
    expect(await store.getEndpoint('wh_a')).toEqual(endpoint('wh_a', T0));

    const changed = await store.updateEndpoint('wh_a', {
      enabled: false,
      disabled_reason: 'gone',
      events: ['api_key.created'],
      description: 'ops',
      secrets: [
        { value: 'whsec_bmV3', expires_at: null },
        { value: 'whsec_c2VjcmV0', expires_at: LATER },
      ],
      updated_at: T2,
    });
    expect(changed).toEqual({
      ...endpoint('wh_a', T0),
      enabled: false,
      disabled_reason: 'gone',
      events: ['api_key.created'],
      description: 'ops',
      secrets: [
        { value: 'whsec_bmV3', expires_at: null },
        { value: 'whsec_c2VjcmV0', expires_at: LATER },
      ],
      updated_at: T2,
    });
    expect(await (await another()).getEndpoint('wh_a')).toEqual(changed);
    expect(await store.updateEndpoint('wh_none', { enabled: false })).toBeUndefined();

    await store.enqueue([delivery('dlv_1', 'wh_a', T0)]);
    expect(await store.deleteEndpoint('wh_a')).toBe(true);
    expect(await store.deleteEndpoint('wh_a')).toBe(false);
    expect(await store.getEndpoint('wh_a')).toBeUndefined();
    expect(await store.getDelivery('wh_a', 'dlv_1')).toBeUndefined();
    expect(await store.pendingCount()).toBe(0);
  });

  it('disables an enabled endpoint once: of two disabling it at once, one finds it disabled', async () => {
    const { store, another } = current();
    await store.createEndpoint(endpoint('wh_a', T0), 2);
    const other = await another();
    const both = await Promise.all([
      store.disableEndpoint('wh_a', 'gone', T1),
      other.disableEndpoint('wh_a', 'gone', T2),
    ]);
    expect(both.filter(Boolean)).toHaveLength(1);
    const after = await store.getEndpoint('wh_a');
    expect(after).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    expect(await store.disableEndpoint('wh_a', 'failing', LATER)).toBe(false);
    expect(await store.getEndpoint('wh_a')).toEqual(after);
    expect(await store.disableEndpoint('wh_none', 'gone', T1)).toBe(false);

    await store.updateEndpoint('wh_a', { enabled: true, disabled_reason: null });
    expect(await store.disableEndpoint('wh_a', 'failing', LATER)).toBe(true);
    expect(await store.getEndpoint('wh_a')).toMatchObject({
      enabled: false,
      disabled_reason: 'failing',
      updated_at: LATER,
    });
  });

  it('claims a due delivery for one instance until its lease ends or its attempt is recorded', async () => {
    const { store, another } = current();
    const other = await another();
    await store.createEndpoint(endpoint('wh_a'), 100);
    await store.enqueue([delivery('dlv_1', 'wh_a', T0), delivery('dlv_2', 'wh_a', LATER)]);
    expect(await store.pendingCount()).toBe(2);

    const [claimed, ...rest] = await store.claimDue(T1, T2, 10);
    expect(rest).toEqual([]);
    expect(claimed).toEqual(delivery('dlv_1', 'wh_a', T0));
    // Claimed: no one else gets it before the lease ends.
    expect(await other.claimDue(T1, T2, 10)).toEqual([]);
    // The lease over (the instance stopped), another takes it.
    expect((await other.claimDue(T2, LATER, 10)).map((d) => d.id)).toEqual(['dlv_1']);

    // An attempt recorded ends the claim: due again at its next time.
    await other.recordAttempt('dlv_1', {
      attempt: 1,
      status: 'pending',
      response_status: 500,
      error: null,
      last_attempt_at: T2,
      next_attempt_at: LATER,
    });
    expect(await store.claimDue(T2, LATER, 10)).toEqual([]);
    const due = await store.claimDue(LATER, '2026-11-27T10:00:00.000Z', 10);
    expect(due.map((d) => d.id).sort()).toEqual(['dlv_1', 'dlv_2']);
    expect(due.find((d) => d.id === 'dlv_1')).toMatchObject({ attempt: 1, response_status: 500 });
  });

  it('keeps a finished delivery out of the outbox, lists an endpoint newest first, retries a failed one', async () => {
    const { store } = current();
    await store.createEndpoint(endpoint('wh_a'), 100);
    await store.createEndpoint(endpoint('wh_b'), 100);
    await store.enqueue([
      delivery('dlv_1', 'wh_a', T0),
      delivery('dlv_2', 'wh_a', T0),
      delivery('dlv_3', 'wh_a', T0),
      delivery('dlv_4', 'wh_b', T0),
    ]);
    await store.claimDue(T0, T1, 10);
    await store.recordAttempt('dlv_1', {
      attempt: 1,
      status: 'succeeded',
      response_status: 204,
      error: null,
      last_attempt_at: T0,
      next_attempt_at: null,
    });
    await store.recordAttempt('dlv_2', {
      attempt: 7,
      status: 'failed',
      response_status: null,
      error: 'timed out after 15 s',
      last_attempt_at: T0,
      next_attempt_at: null,
    });
    expect(await store.pendingCount()).toBe(2);
    expect(await store.claimDue(LATER, LATER, 10)).toHaveLength(2);

    const page = await store.listDeliveries('wh_a', { limit: 2 });
    expect(page.map((d) => d.id)).toEqual(['dlv_3', 'dlv_2']);
    const next = await store.listDeliveries('wh_a', { before: 'dlv_2', limit: 2 });
    expect(next.map((d) => d.id)).toEqual(['dlv_1']);
    expect(next[0]).toMatchObject({ status: 'succeeded', attempt: 1, response_status: 204 });

    expect(await store.retryDelivery('wh_a', 'dlv_1', T2)).toBeUndefined();
    expect(await store.retryDelivery('wh_b', 'dlv_2', T2)).toBeUndefined();
    const again = await store.retryDelivery('wh_a', 'dlv_2', T2);
    expect(again).toMatchObject({ status: 'pending', attempt: 7, next_attempt_at: T2 });
    expect(await store.getDelivery('wh_a', 'dlv_2')).toEqual(again);
  });

  it('purges finished deliveries stored before a time, never pending ones', async () => {
    const { store } = current();
    await store.createEndpoint(endpoint('wh_a'), 100);
    await store.enqueue([delivery('dlv_1', 'wh_a', T0), delivery('dlv_2', 'wh_a', T0)]);
    await store.recordAttempt('dlv_1', {
      attempt: 1,
      status: 'succeeded',
      response_status: 200,
      error: null,
      last_attempt_at: T0,
      next_attempt_at: null,
    });
    expect(await store.purgeDeliveries(LATER)).toBe(1);
    expect((await store.listDeliveries('wh_a', { limit: 10 })).map((d) => d.id)).toEqual(['dlv_2']);
  });

  it('sets a marker once, on every connection, until it expires', async () => {
    const { store, another } = current();
    const other = await another();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? store : other).markOnce('quota:key_a:2026-11-27:80', T0, LATER),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.markOnce('quota:key_a:2026-11-27:100', T0, LATER)).toBe(true);
    expect(
      await store.markOnce('quota:key_a:2026-11-27:80', LATER, '2026-11-28T00:00:00.000Z'),
    ).toBe(true);
  });
});
