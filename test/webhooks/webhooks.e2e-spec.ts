import { lookup } from 'node:dns/promises';
import { bearer, startApp, TestApp } from '../support/app';
import { metricValue } from '../support/metrics';
import { ReportingToolsModule } from '../support/reporting-tools.module';
import { deliveriesWhen, verifiedEvent, WebhookReceiver } from '../support/webhook-receiver';
import { WEBHOOK_RESOLVER, type Resolver } from '../../src/webhooks';

const HOOKS = '/api/v1/webhooks';

/**
 * Webhooks end to end: the real app (SQLite, or Redis in the e2e-redis project) delivering to a
 * receiver on loopback that verifies every request with the `standardwebhooks` package. The
 * deliverer polls every 20 ms, and the retry schedule is shortened (WEBHOOK_RETRY_SCHEDULE).
 */
describe('Webhooks (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  const start = async (env: Record<string, string> = {}, resolver?: Resolver) => {
    t = await startApp({
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_POLL_MS: '20',
        WEBHOOK_RETRY_SCHEDULE: '0.05,0.05,0.05',
        ...env,
      },
      configure: resolver
        ? (builder) => builder.overrideProvider(WEBHOOK_RESOLVER).useValue(resolver)
        : undefined,
    });
  };
  const admin = () => bearer(t.adminKey);
  const create = (body: Record<string, unknown>) => t.http().post(HOOKS).set(admin()).send(body);

  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await t?.close();
    await receiver.close();
  });

  it('creates an endpoint whose secret is shown once, and signs a test event that verifies', async () => {
    await start();
    const res = await create({ url: receiver.url, events: ['*'], description: 'ops' }).expect(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.location).toBe(`${HOOKS}/${res.body.id}`);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^wh_[0-9a-f]{16}$/),
      url: receiver.url,
      events: ['*'],
      description: 'ops',
      enabled: true,
      disabled_reason: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
    });
    const { id, secret } = res.body as { id: string; secret: string };
    const shown = await t.http().get(`${HOOKS}/${id}`).set(admin()).expect(200);
    expect(JSON.stringify(shown.body)).not.toContain('whsec_');
    const listed = await t.http().get(HOOKS).set(admin()).expect(200);
    expect(listed.body.webhooks.map((w: { id: string }) => w.id)).toEqual([id]);

    const test = await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(202);
    expect(test.body).toMatchObject({ type: 'webhook.test', status: 'pending', attempt: 0 });
    const [hook] = await receiver.waitFor(1);
    const event = verifiedEvent(hook, secret);
    expect(event).toMatchObject({
      id: test.body.event_id,
      type: 'webhook.test',
      data: { endpoint_id: id },
    });
    expect(hook.headers['webhook-id']).toBe(test.body.event_id);
    expect(() => verifiedEvent(hook, `whsec_${Buffer.from('wrong').toString('base64')}`)).toThrow();

    const [done] = await deliveriesWhen(t, id, (list) => list[0]?.status === 'succeeded');
    expect(done).toMatchObject({ id: test.body.id, attempt: 1, response_status: 200, error: null });
    // No secret in any log line.
    expect(t.logs.text()).not.toContain(secret);
    const audit = await t.http().get('/api/v1/audit').set(admin()).expect(200);
    expect(audit.body.entries[0]).toMatchObject({ action: 'webhook.created', target: id });
  });

  it("shows a URL's query string as ?… in views, the audit trail and logs, and delivers to the whole URL", async () => {
    await start();
    const hidden = `${receiver.url}?…`;
    const created = await create({ url: `${receiver.url}?token=qs-first`, events: ['*'] });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body.url).toBe(hidden);
    expect((await t.http().get(`${HOOKS}/${id}`).set(admin()).expect(200)).body.url).toBe(hidden);
    const listed = await t.http().get(HOOKS).set(admin()).expect(200);
    expect(listed.body.webhooks.map((w: { url: string }) => w.url)).toEqual([hidden]);
    await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(202);
    const [hook] = await receiver.waitFor(1);
    expect(hook.url).toBe('/hooks?token=qs-first');

    const changed = await t
      .http()
      .patch(`${HOOKS}/${id}`)
      .set(admin())
      .send({ url: `${receiver.url}?token=qs-second` })
      .expect(200);
    expect(changed.body.url).toBe(hidden);
    // The view's URL sent back would store "…" for the token: refused, the URL unchanged.
    const back = await t.http().patch(`${HOOKS}/${id}`).set(admin()).send({ url: hidden });
    expect([back.status, back.body]).toEqual([
      400,
      {
        detail:
          "The webhook URL's query string is shown as ?… and never returned: send the whole URL, its query string included.",
      },
    ]);
    await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(202);
    expect((await receiver.waitFor(2))[1].url).toBe('/hooks?token=qs-second');

    const audit = await t.http().get('/api/v1/audit').set(admin()).expect(200);
    const entries = audit.body.entries as { action: string; details: Record<string, unknown> }[];
    expect(entries.find((e) => e.action === 'webhook.created')?.details).toMatchObject({
      url: hidden,
    });
    expect(entries.find((e) => e.action === 'webhook.updated')?.details).toMatchObject({
      url: { from: hidden, to: hidden },
    });
    expect(JSON.stringify(audit.body)).not.toContain('qs-');
    expect(t.logs.text()).not.toContain('qs-');
  });

  it('retries a failed attempt with the same webhook-id, and a manual retry of a failed delivery too', async () => {
    await start({ WEBHOOK_RETRY_SCHEDULE: '0.05' });
    const { id, secret } = (
      await create({ url: receiver.url, events: ['webhook.test'] }).expect(201)
    ).body as { id: string; secret: string };
    receiver.answer({ status: 500 }, { status: 200 });
    const test = await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(202);
    const [first, second] = await receiver.waitFor(2);
    expect(first.headers['webhook-id']).toBe(test.body.event_id);
    expect(second.headers['webhook-id']).toBe(test.body.event_id);
    expect(verifiedEvent(second, secret).id).toBe(test.body.event_id);
    const [delivered] = await deliveriesWhen(t, id, (list) => list[0]?.status === 'succeeded');
    expect(delivered).toMatchObject({ attempt: 2, response_status: 200 });
    const metrics = (await t.http().get('/metrics').expect(200)).text;
    const attempts = (outcome: string) =>
      metricValue(metrics, 'webhook_deliveries_total', { type: 'webhook.test', outcome });
    expect([attempts('retrying'), attempts('succeeded'), attempts('failed')]).toEqual([1, 1, 0]);
    expect(metricValue(metrics, 'webhook_outbox_pending')).toBe(0);

    // Every attempt of the schedule (1 + 1 retry) refused: failed; then retried by hand.
    receiver.answer({ status: 500 }, { status: 500 });
    const again = await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(202);
    const [failed] = await deliveriesWhen(t, id, (list) => list[0]?.status === 'failed');
    expect(failed).toMatchObject({ id: again.body.id, attempt: 2, response_status: 500 });
    const retried = await t
      .http()
      .post(`${HOOKS}/${id}/deliveries/${again.body.id}/retry`)
      .set(admin())
      .expect(202);
    expect(retried.body).toMatchObject({ status: 'pending', attempt: 2 });
    const hooks = await receiver.waitFor(5);
    expect(hooks[4].headers['webhook-id']).toBe(again.body.event_id);
    const [succeeded] = await deliveriesWhen(t, id, (list) => list[0]?.status === 'succeeded');
    expect(succeeded).toMatchObject({ attempt: 3 });
    // A delivery that did not fail is not retried.
    await t
      .http()
      .post(`${HOOKS}/${id}/deliveries/${again.body.id}/retry`)
      .set(admin())
      .expect(409);
  });

  it("honours Retry-After when it is sooner than the schedule's next step", async () => {
    // The schedule's step is an hour: only Retry-After can bring the second attempt this soon.
    await start({ WEBHOOK_RETRY_SCHEDULE: '3600' });
    const { id } = (await create({ url: receiver.url, events: ['*'] }).expect(201)).body as {
      id: string;
    };
    receiver.answer({ status: 503, headers: { 'Retry-After': '0' } });
    await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(202);
    await receiver.waitFor(2);
    const [delivered] = await deliveriesWhen(t, id, (list) => list[0]?.status === 'succeeded');
    expect(delivered).toMatchObject({ attempt: 2 });
  });

  it('disables an endpoint whose receiver answers 410, audited', async () => {
    await start();
    const { id } = (await create({ url: receiver.url, events: ['*'] }).expect(201)).body as {
      id: string;
    };
    // The first 410 is held until both test events are stored (else the first could disable the
    // endpoint before the second is asked for: a 409).
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    receiver.answer({ status: 410, after: held }, { status: 410 });
    // Two deliveries: the second is sent too when it is under way with the first, else it finds
    // the endpoint disabled. Either way the endpoint is disabled once.
    await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(202);
    await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(202);
    release();
    const both = await deliveriesWhen(
      t,
      id,
      (list) => list.length === 2 && list.every((d) => d.status === 'failed'),
    );
    const gone = {
      attempt: 1,
      response_status: 410,
      error: 'answered 410 Gone: the endpoint is disabled',
    };
    const found = { attempt: 0, response_status: null, error: 'The endpoint is disabled.' };
    expect(both.at(-1)).toMatchObject(gone);
    expect([gone, found]).toContainEqual(
      expect.objectContaining({ error: both[0].error, response_status: both[0].response_status }),
    );
    expect(receiver.received.length).toBe(both.filter((d) => d.response_status === 410).length);
    const view = await t.http().get(`${HOOKS}/${id}`).set(admin()).expect(200);
    expect(view.body).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    const audit = await t.http().get('/api/v1/admin/audit?action=webhook.disabled').set(admin());
    expect(audit.body.entries).toEqual([
      expect.objectContaining({ target: id, details: { reason: 'gone', source: 'system' } }),
    ]);
    await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(409);
    const doctor = await t.http().post('/api/v1/services/doctor').set(admin()).send({});
    expect(doctor.body.checks).toContainEqual({
      name: 'webhooks',
      status: 'warn',
      message: expect.stringMatching(new RegExp(`^${id} was disabled: its receiver answered 410`)),
    });
    // Enabled again by an operator.
    const enabled = await t
      .http()
      .patch(`${HOOKS}/${id}`)
      .set(admin())
      .send({ enabled: true })
      .expect(200);
    expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null });
    const healthy = await t.http().post('/api/v1/services/doctor').set(admin()).send({});
    expect(healthy.body.checks).toContainEqual({
      name: 'webhooks',
      status: 'pass',
      message: '1 endpoint, all delivering; 0 deliveries pending',
    });
  });

  it("signs with both secrets during a rotation's grace, then with the new one alone", async () => {
    // The secrets sealed at rest: what signs is what was opened.
    await start({ WEBHOOK_SECRET_KEY: 'k'.repeat(40) });
    const created = (await create({ url: receiver.url, events: ['*'] }).expect(201)).body as {
      id: string;
      secret: string;
    };
    const rotated = await t
      .http()
      .post(`${HOOKS}/${created.id}/rotate-secret`)
      .set(admin())
      .send({ grace_seconds: 3600 })
      .expect(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    const secret = rotated.body.secret as string;
    expect(secret).not.toBe(created.secret);
    expect(rotated.body.previous_secret_expires_at).toEqual(expect.any(String));
    await t.http().post(`${HOOKS}/${created.id}/test`).set(admin()).expect(202);
    const [during] = await receiver.waitFor(1);
    expect(during.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verifiedEvent(during, secret).type).toBe('webhook.test');
    expect(verifiedEvent(during, created.secret).type).toBe('webhook.test');

    const last = await t
      .http()
      .post(`${HOOKS}/${created.id}/rotate-secret`)
      .set(admin())
      .send({ grace_seconds: 0 })
      .expect(200);
    expect(last.body.previous_secret_expires_at).toBeNull();
    await t.http().post(`${HOOKS}/${created.id}/test`).set(admin()).expect(202);
    const [, after] = await receiver.waitFor(2);
    expect(after.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(verifiedEvent(after, last.body.secret as string).type).toBe('webhook.test');
    expect(() => verifiedEvent(after, secret)).toThrow();
  });

  it('never makes a request wait on a delivery: a change is answered while its receiver still holds the last one', async () => {
    await start();
    await create({ url: receiver.url, events: ['api_key.created'] }).expect(201);
    let release!: () => void;
    receiver.answer({ status: 200, after: new Promise<void>((done) => (release = done)) });
    await t.createKeyWithId({ name: 'first' });
    // The first event's request is open at the receiver, unanswered...
    await receiver.waitFor(1);
    // ...and another change is answered all the same, its event stored.
    const second = await t.createKeyWithId({ name: 'second' });
    expect(second.id).toMatch(/^key_/);
    release();
    const events = (await receiver.waitFor(2)).map(
      (hook) => JSON.parse(hook.body) as { data: { key: { name: string } } },
    );
    expect(events.map((e) => e.data.key.name)).toEqual(['first', 'second']);
  });

  it('sends to one endpoint while another holds its attempt: a slow receiver delays only its own', async () => {
    await start();
    const slow = (await create({ url: receiver.url, events: ['*'] }).expect(201)).body as {
      id: string;
    };
    const other = await WebhookReceiver.start();
    try {
      const fast = (await create({ url: other.url, events: ['*'] }).expect(201)).body as {
        id: string;
      };
      let release!: () => void;
      receiver.answer({ status: 200, after: new Promise<void>((done) => (release = done)) });
      await t.http().post(`${HOOKS}/${slow.id}/test`).set(admin()).expect(202);
      await receiver.waitFor(1);
      await t.http().post(`${HOOKS}/${fast.id}/test`).set(admin()).expect(202);
      // Delivered while the slow receiver still holds its request.
      await other.waitFor(1);
      release();
      await deliveriesWhen(t, slow.id, (list) => list[0]?.status === 'succeeded');
    } finally {
      await other.close();
    }
  });

  it('announces key events to the endpoints subscribed to them, never a secret', async () => {
    await start();
    const { secret } = (
      await create({ url: receiver.url, events: ['api_key.created', 'api_key.revoked'] }).expect(
        201,
      )
    ).body as { secret: string };
    const { key, id } = await t.createKeyWithId({ name: 'announced' });
    await t
      .http()
      .patch(`/api/v1/auth/api-keys/${id}`)
      .set(admin())
      .send({ enabled: false })
      .expect(200);
    await t.http().delete(`/api/v1/auth/api-keys/${id}`).set(admin()).expect(200);
    const hooks = await receiver.waitFor(2);
    const events = hooks.map((hook) => verifiedEvent(hook, secret));
    expect(events.map((e) => e.type).sort()).toEqual(['api_key.created', 'api_key.revoked']);
    const created = events.find((e) => e.type === 'api_key.created')!;
    expect(created.data).toMatchObject({
      key: { id, name: 'announced', enabled: true },
      actor: { principal_id: null },
    });
    for (const hook of hooks) expect(hook.body).not.toContain(key);
  });

  it('announces the end of a long-running call, its result only for a tool that shares it', async () => {
    t = await startApp({
      env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20' },
      imports: [ReportingToolsModule],
    });
    const { secret } = (
      await create({ url: receiver.url, events: ['invocation.finished'] }).expect(201)
    ).body as { secret: string };
    const started: Record<string, string> = {};
    for (const tool of ['shared_report', 'private_report']) {
      const res = await t
        .http()
        .post(`/api/v1/services/${tool}`)
        .set(admin())
        .set('Prefer', 'respond-async')
        .send({ text: `from ${tool}` })
        .expect(202);
      started[tool] = res.body.id as string;
    }
    const events = (await receiver.waitFor(2)).map((hook) => verifiedEvent(hook, secret));
    const byTool = (tool: string) =>
      events.find((e) => (e.data.invocation as { tool: string }).tool === tool)!;
    expect(byTool('shared_report').data).toMatchObject({
      invocation: { id: started.shared_report, status: 'succeeded', error: null },
      caller: { kind: 'key' },
      result: { text: 'from shared_report' },
    });
    expect(byTool('private_report').data).toMatchObject({
      invocation: { id: started.private_report, status: 'succeeded' },
    });
    expect(byTool('private_report').data).not.toHaveProperty('result');
  });

  it.each([
    ['http:// without the switch', 'http://hooks.example.com/x', /https:\/\//],
    ['a loopback address', 'https://127.0.0.1/x', /loopback/],
    ['localhost', 'https://localhost/x', /loopback/],
    ['IPv6 loopback', 'https://[::1]/x', /loopback/],
    ['cloud metadata', 'https://169.254.169.254/latest', /169\.254\.169\.254/],
    ['a private address', 'https://10.0.0.1/x', /private/],
    ['a name resolving to loopback', 'https://hooks.example/x', /127\.0\.0\.1/],
  ])(
    'refuses %s at creation without WEBHOOK_ALLOW_PRIVATE, storing nothing',
    async (_, url, why) => {
      // The seam: one name the test's own, the rest as the system resolves them.
      await start({ WEBHOOK_ALLOW_PRIVATE: 'false' }, async (name) =>
        name === 'hooks.example'
          ? [{ address: '127.0.0.1', family: 4 as const }]
          : (await lookup(name, { all: true })).map(({ address, family }) => ({
              address,
              family: family as 4 | 6,
            })),
      );
      const res = await create({ url, events: ['*'] }).expect(400);
      expect(res.body.detail).toMatch(why);
      expect((await t.http().get(HOOKS).set(admin()).expect(200)).body.webhooks).toEqual([]);
      expect(receiver.connections).toBe(0);
    },
  );

  it('checks the address again at each attempt: a name that now resolves to loopback is not reached', async () => {
    // Public at creation, loopback when the attempt is made (DNS rebinding).
    let answers = 0;
    await start({ WEBHOOK_ALLOW_PRIVATE: 'false', WEBHOOK_RETRY_SCHEDULE: '0' }, () =>
      Promise.resolve([
        { address: answers++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 as const },
      ]),
    );
    const { id } = (await create({ url: 'https://hooks.example/x', events: ['*'] }).expect(201))
      .body as { id: string };
    await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(202);
    const [failed] = await deliveriesWhen(t, id, (list) => list[0]?.status === 'failed');
    expect(failed).toMatchObject({
      response_status: null,
      error: expect.stringMatching(/loopback/),
    });
    expect(receiver.connections).toBe(0);
  });

  it('follows no redirect: a 302 is a failed attempt, its Location never reached', async () => {
    await start({ WEBHOOK_RETRY_SCHEDULE: '0' });
    const elsewhere = await WebhookReceiver.start();
    try {
      const { id } = (await create({ url: receiver.url, events: ['*'] }).expect(201)).body as {
        id: string;
      };
      const redirect = { status: 302, headers: { Location: elsewhere.url } };
      receiver.answer(redirect, redirect);
      await t.http().post(`${HOOKS}/${id}/test`).set(admin()).expect(202);
      const [failed] = await deliveriesWhen(t, id, (list) => list[0]?.status === 'failed');
      expect(failed).toMatchObject({ response_status: 302 });
      expect(elsewhere.connections).toBe(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('refuses what is not an endpoint: unknown events, a missing one, bad bodies', async () => {
    await start();
    const unknown = await create({ url: receiver.url, events: ['key.made'] }).expect(400);
    expect(unknown.body.detail).toMatch(/Unknown event type "key.made"/);
    await create({ url: receiver.url, events: [] }).expect(400);
    await create({ events: ['*'] }).expect(400);
    await t.http().get(`${HOOKS}/wh_0000000000000000`).set(admin()).expect(404);
    await t.http().delete(`${HOOKS}/wh_0000000000000000`).set(admin()).expect(404);
    const types = await t.http().get(`${HOOKS}/event-types`).set(admin()).expect(200);
    expect(types.body.event_types.map((e: { type: string }) => e.type)).toContain('webhook.test');
    // At most 100 endpoints.
    for (let i = 0; i < 100; i++)
      await create({ url: `${receiver.url}/${i}`, events: ['*'] }).expect(201);
    const full = await create({ url: receiver.url, events: ['*'] }).expect(409);
    expect(full.body).toEqual({ detail: 'At most 100 webhook endpoints: delete one first.' });
    // A key without admin scopes sees none of it.
    const user = await t.createKey({ scope_template: 'standard' });
    await t.http().get(HOOKS).set(bearer(user)).expect(403);
  });
});
