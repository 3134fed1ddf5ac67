import { bearer, startApp, TestApp } from '../support/app';
import { verifiedEvent, WebhookReceiver } from '../support/webhook-receiver';

const RUNS = '/api/v1/runs';
const HOOKS = '/api/v1/webhooks';

/**
 * The runs' webhook events (docs/webhooks.md), on two instances sharing one store (the same
 * SQLite file, or Redis in the e2e-redis project), delivered to a receiver on loopback and verified
 * with the `standardwebhooks` package: `run.budget_threshold` at 80 % and 100 % of a budget, once
 * each, whatever the concurrent calls on both instances and a budget raised to be crossed again;
 * `run.ended` when the run is deleted, or ends with its parent.
 */
describe('runs: webhook events (e2e)', () => {
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

  /** An endpoint for the runs' events: its id and secret. */
  const endpoint = async () => {
    const created = await a
      .http()
      .post(HOOKS)
      .set(bearer(a.adminKey))
      .send({ url: receiver.url, events: ['run.budget_threshold', 'run.ended'] })
      .expect(201);
    return created.body as { id: string; secret: string };
  };
  const stored = async (id: string) =>
    (await b.http().get(`${HOOKS}/${id}/deliveries`).set(bearer(b.adminKey)).expect(200)).body
      .deliveries as { type: string }[];
  const greets = (token: string, n: number) =>
    Promise.all(
      Array.from({ length: n }, (_, i) =>
        (i % 2 ? a : b)
          .http()
          .post('/api/v1/services/greet')
          .set(bearer(token))
          .send({ name: `call ${i}` })
          .then((res) => res.status),
      ),
    );

  it('announces 80 % and 100 % of a budget once each under concurrent calls on two instances, and the end', async () => {
    const { id, secret } = await endpoint();
    const parent = await a.createKeyWithId({ rate_limit: 1000 });
    const created = await a.http().post(RUNS).set(bearer(parent.key)).send({ budget: 10 });
    const run = created.body as { id: string; token: string };

    const statuses = await greets(run.token, 20);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(10);
    // Stored before the calls were answered: exactly two.
    expect((await stored(id)).map((d) => d.type)).toEqual([
      'run.budget_threshold',
      'run.budget_threshold',
    ]);

    // A raised budget crossed again (16/20, then 20/20): nothing more, once per run and threshold.
    await b
      .http()
      .patch(`${RUNS}/${run.id}`)
      .set(bearer(parent.key))
      .send({ budget: 20 })
      .expect(200);
    expect((await greets(run.token, 10)).every((s) => s === 200)).toBe(true);
    expect(await stored(id)).toHaveLength(2);

    await b.http().delete(`${RUNS}/${run.id}`).set(bearer(parent.key)).expect(200);
    expect(await stored(id)).toHaveLength(3);

    const hooks = await receiver.waitFor(3);
    const events = hooks.map((hook) => verifiedEvent(hook, secret));
    const thresholds = events
      .filter((e) => e.type === 'run.budget_threshold')
      .map((e) => e.data)
      .sort((x, y) => Number(x.threshold) - Number(y.threshold));
    const about = { id: run.id, parent: { kind: 'key', id: parent.id } };
    expect(thresholds).toEqual([
      { run: about, threshold: 80, budget: 10, spent: 8 },
      { run: about, threshold: 100, budget: 10, spent: 10 },
    ]);
    const [ended] = events.filter((e) => e.type === 'run.ended');
    const shown = await a.http().get(`${RUNS}/${run.id}`).set(bearer(parent.key)).expect(200);
    expect(ended.data).toEqual({ run: shown.body });
    expect(ended.data.run).toMatchObject({
      id: run.id,
      status: 'ended',
      ended_reason: 'deleted',
      budget: 20,
      spent: 20,
      remaining: 0,
      spent_by_tool: { greet: 20 },
      parent: { kind: 'key', id: parent.id },
    });
    expect(JSON.stringify(events)).not.toContain(run.token);
    expect(new Set(hooks.map((hook) => hook.headers['webhook-id'])).size).toBe(3);
    // Deleting it again ends nothing: no second run.ended.
    await a.http().delete(`${RUNS}/${run.id}`).set(bearer(parent.key)).expect(200);
    expect(await stored(id)).toHaveLength(3);
  });

  it('announces run.ended when a run ends with its parent, once, seen by its next call', async () => {
    const { id, secret } = await endpoint();
    const parent = await a.createKeyWithId({ rate_limit: 1000 });
    const created = await a.http().post(RUNS).set(bearer(parent.key)).send({ budget: 10 });
    const run = created.body as { id: string; token: string };
    await b.http().post('/api/v1/services/greet').set(bearer(run.token)).send({ name: 'x' });
    await a.http().delete(`/api/v1/auth/api-keys/${parent.id}`).set(bearer(a.adminKey));
    // Both instances see the end; one of them ends the run.
    const refusals = await Promise.all(
      [a, b].map((t) =>
        t.http().post('/api/v1/services/greet').set(bearer(run.token)).send({ name: 'y' }),
      ),
    );
    expect(refusals.map((res) => res.status)).toEqual([401, 401]);
    expect((await stored(id)).map((d) => d.type)).toEqual(['run.ended']);
    const [hook] = await receiver.waitFor(1);
    expect(verifiedEvent(hook, secret).data.run).toMatchObject({
      id: run.id,
      status: 'ended',
      ended_reason: 'parent_revoked',
      spent: 1,
    });
  });
});
