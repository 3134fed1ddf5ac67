import Redis from 'ioredis';
import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { redisTestEnv, sharedRedisMode } from '../support/redis';
import { deliveriesWhen, verifiedEvent, WebhookReceiver } from '../support/webhook-receiver';

/**
 * An outbox an earlier version left on Redis (one due set of every endpoint's deliveries) is moved
 * into the endpoints' own at a sender's start, and sent. On the single Redis of the e2e-redis run;
 * SQLite's schema migration has its unit spec beside the store.
 */
const onSingleRedis = sharedRedisMode() === 'single' ? describe : describe.skip;

onSingleRedis("webhooks on an earlier version's Redis outbox (e2e)", () => {
  let t: TestApp | undefined;
  let receiver: WebhookReceiver;
  let redis: Redis;

  afterEach(async () => {
    await receiver.close();
    await t?.close();
    redis.disconnect();
  });

  it('sends a delivery the earlier layout holds once an instance starts', async () => {
    receiver = await WebhookReceiver.start();
    const dataDir = tempDataDir();
    const { REDIS_URL, REDIS_KEY_PREFIX } = redisTestEnv(dataDir);
    redis = new Redis(REDIS_URL, { keyPrefix: REDIS_KEY_PREFIX });
    const env = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20' };
    // The endpoint made through the API by an instance that never looks for deliveries again.
    const first = await startApp({ dataDir, env: { ...env, WEBHOOK_POLL_MS: '3600000' } });
    const created = await first
      .http()
      .post('/api/v1/webhooks')
      .set(bearer(first.adminKey))
      .send({ url: receiver.url, events: ['*'] })
      .expect(201);
    const { id, secret } = created.body as { id: string; secret: string };
    await first.close();

    // A pending delivery as the earlier version stored it: its record, its endpoint's list, and
    // the one due set of every endpoint.
    const at = new Date().toISOString();
    const event = { id: 'msg_earlier', type: 'webhook.test', created_at: at, data: {} };
    const delivery = {
      id: 'dlv_0earlier0000000000000',
      endpoint_id: id,
      event_id: event.id,
      type: event.type,
      payload: JSON.stringify(event),
      attempt: 0,
      status: 'pending',
      response_status: null,
      error: null,
      at,
      last_attempt_at: null,
      next_attempt_at: at,
    };
    const fields = Object.entries(delivery).flatMap(([f, v]) => [f, JSON.stringify(v)]);
    await redis.hset(`{webhooks}:dlv:${delivery.id}`, ...fields);
    await redis.zadd(`{webhooks}:of:${id}`, 0, delivery.id);
    await redis.zadd('{webhooks}:due', Date.parse(at), delivery.id);

    t = await startApp({ dataDir, env });
    const [hook] = await receiver.waitFor(1);
    expect(verifiedEvent(hook, secret).id).toBe('msg_earlier');
    const [sent] = await deliveriesWhen(t, id, (list) => list[0]?.status === 'succeeded');
    expect(sent).toMatchObject({ id: delivery.id, attempt: 1 });
    expect(await redis.exists('{webhooks}:due')).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });
});
