import { bearer, startApp, TestApp } from '../support/app';
import { metricValue } from '../support/metrics';
import { until } from '../support/runtime-instance';
import { deliveriesWhen, WebhookReceiver } from '../support/webhook-receiver';

const HOOKS = '/api/v1/webhooks';

/**
 * Endpoints isolated from each other: a hung receiver (it accepts every request and never answers)
 * and a flood beside a healthy endpoint, on one instance and on two sharing the store (one SQLite
 * file, or Redis in the e2e-redis project). What is asserted is what each endpoint holds of an
 * instance's slots when the healthy endpoint's delivery is attempted, never a time: the hung
 * attempts are still open when the healthy one arrives.
 */
describe('webhook endpoints isolated from each other (e2e)', () => {
  const apps: TestApp[] = [];
  const receivers: WebhookReceiver[] = [];
  const releases: (() => void)[] = [];

  /** An instance polling every 20 ms; a second one on the first one's store with `shared`. */
  const start = async (env: Record<string, string>, shared?: TestApp) => {
    const app = await startApp({
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', ...env },
      dataDir: shared?.dataDir,
    });
    apps.push(app);
    return app;
  };
  const receiver = async () => {
    const started = await WebhookReceiver.start();
    receivers.push(started);
    return started;
  };
  /** The receiver holds every request from now on, unanswered (released after the test). */
  const hang = (hooks: WebhookReceiver) => {
    const release = hooks.hang();
    releases.push(release);
    return release;
  };
  const endpoint = async (t: TestApp, hooks: WebhookReceiver) =>
    (
      await t
        .http()
        .post(HOOKS)
        .set(bearer(t.adminKey))
        .send({ url: hooks.url, events: ['webhook.test'] })
        .expect(201)
    ).body.id as string;
  const test = (t: TestApp, id: string) =>
    t.http().post(`${HOOKS}/${id}/test`).set(bearer(t.adminKey)).expect(202);
  const tests = async (t: TestApp, id: string, count: number) => {
    for (let i = 0; i < count; i++) await test(t, id);
  };
  /** The attempts an instance has under way to an endpoint (its own gauge). */
  const inFlight = async (t: TestApp, id: string) =>
    metricValue((await t.http().get('/metrics').expect(200)).text, 'webhook_attempts_in_flight', {
      endpoint: id,
    });

  afterEach(async () => {
    // The held requests answered and the receivers closed first: an instance's stop waits for
    // the attempts it has under way.
    releases.splice(0).forEach((release) => release());
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  it("sends a healthy endpoint's event while a hung receiver and a flood hold their share of the slots", async () => {
    // Four slots: an endpoint holds at most one (a quarter) while another's delivery waits.
    const t = await start({ WEBHOOK_CONCURRENCY: '4' });
    const [hung, flood, healthy] = [await receiver(), await receiver(), await receiver()];
    const [hungId, floodId, healthyId] = [
      await endpoint(t, hung),
      await endpoint(t, flood),
      await endpoint(t, healthy),
    ];
    hang(hung);
    hang(flood);
    // More deliveries queued to the hung receiver than the instance has slots, then a flood.
    await tests(t, hungId, 12);
    await hung.waitFor(1);
    await tests(t, floodId, 40);
    await flood.waitFor(1);

    await test(t, healthyId);
    await healthy.waitFor(1);
    // Its attempt was made while the other two held theirs, unanswered, one each.
    expect([hung.received.length, flood.received.length]).toEqual([1, 1]);
    expect([await inFlight(t, hungId), await inFlight(t, floodId)]).toEqual([1, 1]);
    const [delivered] = await deliveriesWhen(t, healthyId, (l) => l[0]?.status === 'succeeded');
    expect(delivered).toMatchObject({ attempt: 1, response_status: 200 });
  });

  it('holds one slot for an endpoint after 5 failed attempts in a row, its share again once one succeeds', async () => {
    // Eight slots, half an endpoint's at most: four.
    const t = await start({
      WEBHOOK_CONCURRENCY: '8',
      WEBHOOK_ENDPOINT_SHARE: '0.5',
      // A failed delivery is retried in an hour: what is due is what the test sends.
      WEBHOOK_RETRY_SCHEDULE: '3600',
    });
    const [failing, healthy] = [await receiver(), await receiver()];
    const [failingId, healthyId] = [await endpoint(t, failing), await endpoint(t, healthy)];
    failing.answer(...Array.from({ length: 5 }, () => ({ status: 500 })));
    await tests(t, failingId, 5);
    await deliveriesWhen(
      t,
      failingId,
      (list) => list.filter((d) => d.response_status === 500).length === 5,
    );

    // Five failed in a row: of six more deliveries due, it is sent one at a time.
    const release = hang(failing);
    await tests(t, failingId, 6);
    await failing.waitFor(6);
    await test(t, healthyId);
    await healthy.waitFor(1);
    expect(await inFlight(t, failingId)).toBe(1);
    expect(failing.received).toHaveLength(6);

    // Its attempt succeeds (the requests after it still held): four of the five left are sent
    // at once, its share again.
    hang(failing);
    release();
    await deliveriesWhen(t, failingId, (list) => list.some((d) => d.status === 'succeeded'));
    expect(
      await until(
        () => inFlight(t, failingId),
        (n) => n === 4,
        10_000,
      ),
    ).toBe(4);
    expect(await inFlight(t, healthyId)).toBe(0);
  });

  it("fails an endpoint's oldest pending deliveries past WEBHOOK_MAX_PENDING_PER_ENDPOINT, counted in doctor and /metrics", async () => {
    // The instance looks for deliveries once, at its start: what is stored stays pending.
    const t = await start({ WEBHOOK_MAX_PENDING_PER_ENDPOINT: '3', WEBHOOK_POLL_MS: '3600000' });
    const hooks = await receiver();
    const id = await endpoint(t, hooks);
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) sent.push((await test(t, id)).body.id as string);

    const list = await deliveriesWhen(t, id, (l) => l.length === 5);
    const byId = new Map(list.map((d) => [d.id, d]));
    const failed = { status: 'failed', error: 'backlog', attempt: 0, next_attempt_at: null };
    expect(sent.map((d) => byId.get(d))).toEqual([
      expect.objectContaining(failed),
      expect.objectContaining(failed),
      ...Array.from({ length: 3 }, () => expect.objectContaining({ status: 'pending' })),
    ]);
    const metrics = (await t.http().get('/metrics').expect(200)).text;
    expect(metricValue(metrics, 'webhook_deliveries_total', { outcome: 'backlog' })).toBe(2);
    expect(metricValue(metrics, 'webhook_outbox_pending')).toBe(3);
    const doctor = await t.http().post('/api/v1/services/doctor').set(bearer(t.adminKey)).send({});
    expect(doctor.body.checks).toContainEqual({
      name: 'webhooks',
      status: 'warn',
      message: expect.stringContaining(
        `${id}: 2 deliveries failed unsent past its backlog of 3 pending`,
      ),
    });
    expect(hooks.received).toHaveLength(0);
  });

  it("sends a healthy endpoint's event on two instances sharing the store while a hung receiver and a flood hold their share of each", async () => {
    const env = { WEBHOOK_CONCURRENCY: '4' };
    const a = await start(env);
    const b = await start(env, a);
    const [hung, flood, healthy] = [await receiver(), await receiver(), await receiver()];
    const [hungId, floodId, healthyId] = [
      await endpoint(a, hung),
      await endpoint(a, flood),
      await endpoint(a, healthy),
    ];
    hang(hung);
    hang(flood);
    await tests(a, hungId, 12);
    await tests(b, floodId, 40);
    await hung.waitFor(1);
    await flood.waitFor(1);

    await test(b, healthyId);
    await healthy.waitFor(1);
    // Each instance holds at most one attempt of each: two of each at most, unanswered.
    expect(hung.received.length).toBeLessThanOrEqual(2);
    expect(flood.received.length).toBeLessThanOrEqual(2);
    for (const t of [a, b]) {
      expect(await inFlight(t, hungId)).toBeLessThanOrEqual(1);
      expect(await inFlight(t, floodId)).toBeLessThanOrEqual(1);
    }
    const [delivered] = await deliveriesWhen(b, healthyId, (l) => l[0]?.status === 'succeeded');
    expect(delivered).toMatchObject({ attempt: 1 });
  });
});
