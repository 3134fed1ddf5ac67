import { onBothBackends } from '../../test/support/store-contract';
import { WEBHOOK_STORE } from './webhooks.stores';
import type {
  AttemptOutcome,
  ClaimLimits,
  WebhookDelivery,
  WebhookEndpoint,
} from './webhook.store';

const endpoint = (id: string, created_at = '2026-11-27T08:00:00.000Z'): WebhookEndpoint => ({
  id,
  url: `https://hooks.example/${id}`,
  events: ['*'],
  description: null,
  enabled: true,
  disabled_reason: null,
  secrets: [{ value: 'whsec_c2VjcmV0', expires_at: null }],
  failing_since: null,
  consecutive_failures: 0,
  backlog_failed: 0,
  backlog_failed_at: null,
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

/** A claim of up to `total`, 100 of an endpoint, nothing under way. */
const upTo = (total: number, more: Partial<ClaimLimits> = {}): ClaimLimits => ({
  total,
  perEndpoint: 100,
  failingAfter: 5,
  inFlight: new Map(),
  ...more,
});

const of = (id: string, endpointId = 'wh_a') => ({ id, endpoint_id: endpointId });

const failedAt = (at: string): AttemptOutcome => ({
  attempt: 1,
  status: 'pending',
  response_status: 500,
  error: 'answered 500',
  last_attempt_at: at,
  next_attempt_at: '2026-11-27T09:00:00.000Z',
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

    await store.enqueue([delivery('dlv_1', 'wh_a', T0)], 100, T0);
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
    await store.enqueue([delivery('dlv_1', 'wh_a', T0), delivery('dlv_2', 'wh_a', LATER)], 100, T0);
    expect(await store.pendingCount()).toBe(2);

    const [claimed, ...rest] = await store.claimDue(T1, T2, upTo(10));
    expect(rest).toEqual([]);
    expect(claimed).toEqual(delivery('dlv_1', 'wh_a', T0));
    // Claimed: no one else gets it before the lease ends.
    expect(await other.claimDue(T1, T2, upTo(10))).toEqual([]);
    // The lease over (the instance stopped), another takes it.
    expect((await other.claimDue(T2, LATER, upTo(10))).map((d) => d.id)).toEqual(['dlv_1']);

    // An attempt recorded ends the claim: due again at its next time.
    await other.recordAttempt(
      of('dlv_1'),
      {
        attempt: 1,
        status: 'pending',
        response_status: 500,
        error: null,
        last_attempt_at: T2,
        next_attempt_at: LATER,
      },
      true,
    );
    expect(await store.claimDue(T2, LATER, upTo(10))).toEqual([]);
    const due = await store.claimDue(LATER, '2026-11-27T10:00:00.000Z', upTo(10));
    expect(due.map((d) => d.id).sort()).toEqual(['dlv_1', 'dlv_2']);
    expect(due.find((d) => d.id === 'dlv_1')).toMatchObject({ attempt: 1, response_status: 500 });
  });

  it('keeps a finished delivery out of the outbox, lists an endpoint newest first, retries a failed one', async () => {
    const { store } = current();
    await store.createEndpoint(endpoint('wh_a'), 100);
    await store.createEndpoint(endpoint('wh_b'), 100);
    await store.enqueue(
      [
        delivery('dlv_1', 'wh_a', T0),
        delivery('dlv_2', 'wh_a', T0),
        delivery('dlv_3', 'wh_a', T0),
        delivery('dlv_4', 'wh_b', T0),
      ],
      100,
      T0,
    );
    await store.claimDue(T0, T1, upTo(10));
    await store.recordAttempt(
      of('dlv_1'),
      {
        attempt: 1,
        status: 'succeeded',
        response_status: 204,
        error: null,
        last_attempt_at: T0,
        next_attempt_at: null,
      },
      true,
    );
    await store.recordAttempt(
      of('dlv_2'),
      {
        attempt: 7,
        status: 'failed',
        response_status: null,
        error: 'timed out after 15 s',
        last_attempt_at: T0,
        next_attempt_at: null,
      },
      true,
    );
    expect(await store.pendingCount()).toBe(2);
    expect(await store.claimDue(LATER, LATER, upTo(10))).toHaveLength(2);

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
    expect(await store.pendingCount()).toBe(3);
    const due = await store.claimDue(LATER, LATER, upTo(10));
    expect(due.map((d) => d.id).sort()).toEqual(['dlv_2', 'dlv_3', 'dlv_4']);
  });

  it("claims round-robin over the endpoints, each within its room: a flood of one never starves another's", async () => {
    const { store, another } = current();
    for (const id of ['wh_a', 'wh_b', 'wh_c']) await store.createEndpoint(endpoint(id), 100);
    const flood = Array.from({ length: 340 }, (_, i) =>
      delivery(`dlv_a${String(i).padStart(3, '0')}`, 'wh_a', T0),
    );
    await store.enqueue(flood, 10_000, T0);
    await store.enqueue([delivery('dlv_b1', 'wh_b', T1), delivery('dlv_b2', 'wh_b', T1)], 100, T1);
    await store.enqueue([delivery('dlv_c1', 'wh_c', T1), delivery('dlv_c2', 'wh_c', T1)], 100, T1);
    // wh_c failed 5 attempts in a row: one at most.
    await store.updateEndpoint('wh_c', { consecutive_failures: 5 });

    // Four of an endpoint at most, one of wh_a already under way here: the first due of each in
    // turn (those with fewer under way first), then the second, ...
    const limits = upTo(20, { perEndpoint: 4, inFlight: new Map([['wh_a', 1]]) });
    const taken = await store.claimDue(T2, LATER, limits);
    expect(taken.map((d) => d.id)).toEqual([
      'dlv_b1',
      'dlv_c1',
      'dlv_a000',
      'dlv_b2',
      'dlv_a001',
      'dlv_a002',
    ]);
    // Two slots left, the round starting after the endpoint the last claim ended with.
    const other = await another();
    const next = await other.claimDue(T2, LATER, upTo(2, { perEndpoint: 4, after: 'wh_b' }));
    expect(next.map((d) => d.id)).toEqual(['dlv_c2', 'dlv_a003']);
    expect(await store.claimDue(T2, LATER, upTo(1, { perEndpoint: 4, after: 'wh_c' }))).toEqual([
      expect.objectContaining({ id: 'dlv_a004' }),
    ]);
    expect(await store.pendingCount()).toBe(344);
  });

  it("counts an endpoint's failed attempts in a row with the attempt, ended by a success", async () => {
    const { store } = current();
    await store.createEndpoint(endpoint('wh_a'), 100);
    await store.enqueue([delivery('dlv_1', 'wh_a', T0), delivery('dlv_2', 'wh_a', T0)], 100, T0);
    expect(await store.recordAttempt(of('dlv_1'), failedAt(T1), true)).toEqual({
      failing_since: T1,
      consecutive_failures: 1,
    });
    expect(await store.recordAttempt(of('dlv_2'), failedAt(T2), true)).toEqual({
      failing_since: T1,
      consecutive_failures: 2,
    });
    // No attempt made (the endpoint disabled): its spell unchanged.
    const unsent = { ...failedAt(T2), status: 'failed' as const, next_attempt_at: null };
    expect(await store.recordAttempt(of('dlv_2'), unsent, false)).toBeUndefined();
    expect(await store.getEndpoint('wh_a')).toMatchObject({ consecutive_failures: 2 });
    const delivered = { ...failedAt(LATER), status: 'succeeded' as const, next_attempt_at: null };
    expect(await store.recordAttempt(of('dlv_1'), delivered, true)).toEqual({
      failing_since: null,
      consecutive_failures: 0,
    });
    expect(await store.getEndpoint('wh_a')).toMatchObject({
      failing_since: null,
      consecutive_failures: 0,
    });
    expect(await store.recordAttempt(of('dlv_1', 'wh_none'), delivered, true)).toBeUndefined();
  });

  it("fails an endpoint's oldest pending past the most it keeps, counted on it; keeps none of an endpoint gone", async () => {
    const { store } = current();
    await store.createEndpoint(endpoint('wh_a'), 100);
    await store.createEndpoint(endpoint('wh_b'), 100);
    const five = ['dlv_1', 'dlv_2', 'dlv_3', 'dlv_4', 'dlv_5'];
    expect(
      await store.enqueue(
        five.slice(0, 3).map((id) => delivery(id, 'wh_a', T0)),
        3,
        T0,
      ),
    ).toEqual([]);
    await store.claimDue(T0, T1, upTo(1));
    const failed = await store.enqueue(
      [...five.slice(3).map((id) => delivery(id, 'wh_a', T1)), delivery('dlv_6', 'wh_b', T1)],
      3,
      T1,
    );
    expect(failed).toEqual([
      { id: 'dlv_1', type: 'webhook.test', endpoint_id: 'wh_a' },
      { id: 'dlv_2', type: 'webhook.test', endpoint_id: 'wh_a' },
    ]);
    expect(await store.getDelivery('wh_a', 'dlv_2')).toMatchObject({
      status: 'failed',
      error: 'backlog',
      attempt: 0,
      next_attempt_at: null,
    });
    expect(await store.getEndpoint('wh_a')).toMatchObject({
      backlog_failed: 2,
      backlog_failed_at: T1,
    });
    expect(await store.getEndpoint('wh_b')).toMatchObject({ backlog_failed: 0 });
    expect(await store.pendingCount()).toBe(4);
    const due = await store.claimDue(T2, LATER, upTo(10));
    expect(due.map((d) => d.id).sort()).toEqual(['dlv_3', 'dlv_4', 'dlv_5', 'dlv_6']);

    await store.deleteEndpoint('wh_b');
    expect(await store.enqueue([delivery('dlv_7', 'wh_b', T2)], 3, T2)).toEqual([]);
    expect(await store.getDelivery('wh_b', 'dlv_7')).toBeUndefined();
    expect(await store.pendingCount()).toBe(3);
  });

  it('purges finished deliveries stored before a time, never pending ones', async () => {
    const { store } = current();
    await store.createEndpoint(endpoint('wh_a'), 100);
    await store.enqueue([delivery('dlv_1', 'wh_a', T0), delivery('dlv_2', 'wh_a', T0)], 100, T0);
    await store.recordAttempt(
      of('dlv_1'),
      {
        attempt: 1,
        status: 'succeeded',
        response_status: 200,
        error: null,
        last_attempt_at: T0,
        next_attempt_at: null,
      },
      true,
    );
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
