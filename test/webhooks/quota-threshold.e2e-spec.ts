import { bearer, startApp, TestApp } from '../support/app';
import { verifiedEvent, WebhookReceiver } from '../support/webhook-receiver';

/**
 * `quota.threshold` on two instances sharing one store (the same SQLite file, or Redis in the
 * e2e-redis project): concurrent calls on both cross each threshold once, and once only.
 */
describe('quota.threshold (e2e)', () => {
  let a: TestApp;
  let b: TestApp;
  let receiver: WebhookReceiver;
  const env = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20' };

  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
    a = await startApp({ env });
    b = await startApp({ env, dataDir: a.dataDir });
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await receiver.close();
  });

  it('announces 80 % and 100 % of a day, and 80 % of a month, once each, under 20 concurrent calls on two instances', async () => {
    const created = await a
      .http()
      .post('/api/v1/webhooks')
      .set(bearer(a.adminKey))
      .send({ url: receiver.url, events: ['quota.threshold'] })
      .expect(201);
    const { id, secret } = created.body as { id: string; secret: string };
    const key = await a.createKeyWithId({
      plan: 'free',
      daily_limit: 10,
      monthly_limit: 12,
      rate_limit: 1000,
    });

    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b)
          .http()
          .post('/api/v1/services/greet')
          .set(bearer(key.key))
          .send({ name: `call ${i}` })
          .then((res) => res.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(10);

    // Stored before the calls were answered: the outbox holds exactly three.
    const listed = await b.http().get(`/api/v1/webhooks/${id}/deliveries`).set(bearer(b.adminKey));
    expect(listed.body.deliveries).toHaveLength(3);

    const hooks = await receiver.waitFor(3);
    const events = hooks.map((hook) => verifiedEvent(hook, secret));
    const day = new Date().toISOString().slice(0, 10);
    expect(
      events
        .map((e) => e.data)
        .sort((x, y) =>
          `${String(x.period)}${String(x.threshold)}`.localeCompare(
            `${String(y.period)}${String(y.threshold)}`,
          ),
        ),
    ).toEqual([
      {
        subject: { kind: 'key', id: key.id },
        period: 'day',
        period_start: day,
        threshold: 100,
        limit: 10,
        used: 10,
        resets_at: expect.any(String),
      },
      expect.objectContaining({ period: 'day', threshold: 80, used: 8, limit: 10 }),
      expect.objectContaining({ period: 'month', period_start: day.slice(0, 7), threshold: 80 }),
    ]);
    expect(new Set(hooks.map((hook) => hook.headers['webhook-id'])).size).toBe(3);
  });
});
