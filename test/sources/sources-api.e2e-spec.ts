import { STORE_BACKEND, type StoreBackend } from '../../src/kernel/store/store.module';
import { RedisKeys } from '../../src/kernel/store/redis/redis.keys';
import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { writeConfigFile } from '../support/config';
import { usingSharedRedis } from '../support/redis';
import { eventually, HttpUpstream, startSdk1Http } from '../support/upstreams';
import { startFastApi } from '../support/upstreams/fastapi';
import { verifiedEvent, WebhookReceiver } from '../support/webhook-receiver';

const SOURCES = '/api/v1/sources';
const TOKEN = 'upstream-token-made-through-the-api';
/** A URL's query string is write-only too. */
const TENANT = 'tenant-secret-of-the-query';
const SECRETS_KEY = 'a-long-random-text-that-seals-the-secrets-0123456789';

interface View {
  name: string;
  state: string;
  origin: string;
  tools: { name: string; cost: number }[];
  [field: string]: unknown;
}

/**
 * Sources made through `/api/v1/sources` against a real upstream (the SDK 1.x server over
 * Streamable HTTP): created, called and charged, changed, removed, kept in the store (sealed with
 * SECRETS_KEY) across a restart and shared by two instances on one Redis, audited and sent to a
 * real webhook receiver; what the API may not create refused, changing nothing.
 */
describe('Sources made through the API (e2e)', () => {
  let t: TestApp;
  let upstream: HttpUpstream;
  let receiver: WebhookReceiver;
  let hookSecret: string;
  let dataDir: string;
  let env: Record<string, string>;
  /** Every answer's body and headers, as text: none may hold a secret. */
  const answers: string[] = [];

  const admin = () => bearer(t.adminKey);
  /** The answer, when its status is `status`; else a failure showing the body. */
  const answered = <T extends { status: number; body: unknown }>(res: T, status: number): T => {
    if (res.status !== status) {
      throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
    }
    return res;
  };
  const keep = <T extends { body: unknown; headers: unknown }>(res: T): T => {
    answers.push(JSON.stringify(res.body), JSON.stringify(res.headers));
    return res;
  };
  const post = async (body: unknown, app = t) =>
    keep(
      await app
        .http()
        .post(SOURCES)
        .set(bearer(app.adminKey))
        .send(body as object),
    );
  const patch = async (name: string, body: unknown, app = t) =>
    keep(
      await app
        .http()
        .patch(`${SOURCES}/${name}`)
        .set(bearer(app.adminKey))
        .send(body as object),
    );
  const get = async (name: string, app = t) =>
    keep(await app.http().get(`${SOURCES}/${name}`).set(bearer(app.adminKey)));
  const names = async (app = t) =>
    (
      keep(await app.http().get(SOURCES).set(bearer(app.adminKey)).expect(200)).body
        .sources as View[]
    ).map(({ name }) => name);
  const ready = (name: string, app = t) =>
    eventually(async () => (await get(name, app)).body.state === 'ready', 20_000);
  const source = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    kind: 'mcp',
    url: `${upstream.url}?tenant=${TENANT}`,
    auth: { type: 'bearer', token: TOKEN },
    include: ['echo', 'headers'],
    cost: 2,
    ...extra,
  });
  const events = async (type: string, name: string) => {
    let found: ReturnType<typeof verifiedEvent>[] = [];
    await eventually(() => {
      found = receiver.received
        .map((hook) => verifiedEvent(hook, hookSecret))
        .filter((event) => event.type === type && (event.data.source as View).name === name);
      return found.length > 0;
    }, 15_000);
    return found;
  };
  const audit = async (name: string) =>
    (
      keep(await t.http().get('/api/v1/audit?limit=100').set(admin()).expect(200)).body.entries as {
        action: string;
        target: string;
        details: unknown;
      }[]
    ).filter(({ target }) => target === name);
  /** The source's record as the store holds it, raw. */
  const stored = async (name: string): Promise<string | undefined> => {
    const backend = t.app.get<StoreBackend>(STORE_BACKEND);
    if (backend.kind === 'sqlite') {
      const row: unknown = backend.sqlite.db
        .prepare('SELECT * FROM sources WHERE name = ?')
        .get(name);
      return row === undefined ? undefined : JSON.stringify(row);
    }
    return (await backend.redis.client.hget(RedisKeys.sources, name)) ?? undefined;
  };

  const start = async () => {
    t = await startApp({ dataDir, env });
  };

  beforeAll(async () => {
    [upstream, receiver] = await Promise.all([startSdk1Http(), WebhookReceiver.start()]);
    dataDir = tempDataDir();
    const config = `sources:\n  fixed:\n    kind: mcp\n    url: ${upstream.url}\n    include: [echo]\n`;
    env = {
      CONFIG_FILE: writeConfigFile(dataDir, config),
      SOURCE_ALLOW_PRIVATE: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_POLL_MS: '20',
      SECRETS_KEY,
    };
    await start();
    const hook = await t
      .http()
      .post('/api/v1/webhooks')
      .set(admin())
      .send({ url: receiver.url, events: ['*'] })
      .expect(201);
    hookSecret = hook.body.secret as string;
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await Promise.all([upstream?.stop(), receiver?.close()]);
  });

  it('creates an MCP source: 201 starting with no tools, then its tools served and charged, its own token sent', async () => {
    const res = answered(await post(source('alpha')), 201);
    expect(res.headers.location).toBe(`${SOURCES}/alpha`);
    expect(res.body).toEqual({
      name: 'alpha',
      kind: 'mcp',
      url: `${upstream.url}?%E2%80%A6`,
      prefix: 'alpha',
      state: 'starting',
      last_error: null,
      refreshed_at: null,
      origin: 'api',
      tools: [],
    });
    await ready('alpha');
    const view = (await get('alpha')).body as View;
    expect(view.tools.map(({ name, cost }) => [name, cost])).toEqual([
      ['alpha_echo', 2],
      ['alpha_headers', 2],
    ]);
    const key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
    const call = keep(await t.callTool('alpha_echo', { text: 'made' }, key).expect(200));
    expect(call.body).toMatchObject({ content: [{ type: 'text', text: 'made' }], isError: false });
    expect(call.headers['x-quota-cost']).toBe('2');
    const entries = await t.ledger({ tool: 'alpha_echo' });
    expect(
      entries.find(({ request_id }) => request_id === call.headers['x-request-id']),
    ).toMatchObject({
      source: 'alpha',
      credits: 2,
      kind: 'charge',
    });
    const headers = await t.callTool('alpha_headers', {}, key).expect(200);
    const sent = JSON.parse(headers.body.content[0].text as string) as Record<string, string>;
    expect(sent.authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.stringify(sent)).not.toContain(key);
    // Audited and sent as events, never with a secret.
    const [created] = await audit('alpha');
    expect(created).toMatchObject({
      action: 'source.created',
      details: { kind: 'mcp', url: `${upstream.url}?%E2%80%A6`, prefix: 'alpha' },
    });
    const [event] = await events('source.created', 'alpha');
    expect(event.data).toMatchObject({
      source: { name: 'alpha', origin: 'api', state: 'starting' },
    });
    expect((await events('source.available', 'alpha'))[0].data.source).toMatchObject({
      state: 'ready',
    });
  });

  it('keeps the secrets sealed in the store and out of every answer, event, audit entry and log line', async () => {
    answered(await post(source('sealed')), 201);
    await ready('sealed');
    const raw = await stored('sealed');
    expect(raw).toContain('sealed:v1:');
    expect(raw).not.toContain(TOKEN);
    expect(raw).not.toContain(TENANT);
    await audit('sealed');
    await names();
    await events('source.available', 'sealed');
    const everything = [
      ...answers,
      ...receiver.received.map(({ body }) => body),
      t.logs.text(),
    ].join('\n');
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(TENANT);
  });

  it('changes a source with PATCH and reads its upstream again; a token not sent is kept', async () => {
    answered(await post(source('beta')), 201);
    await ready('beta');
    const res = answered(await patch('beta', { include: ['echo'], cost: 5 }), 200);
    expect(res.body).toMatchObject({ name: 'beta', state: 'starting', tools: [] });
    await ready('beta');
    expect(((await get('beta')).body as View).tools).toEqual([
      expect.objectContaining({ name: 'beta_echo', cost: 5 }),
    ]);
    const key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
    await t.callTool('beta_headers', {}, key).expect(404);
    const call = await t.callTool('beta_echo', { text: 'x' }, key).expect(200);
    expect(call.headers['x-quota-cost']).toBe('5');
    // Back to the default with null, the prefix changed: the tools move.
    answered(await patch('beta', { cost: null, prefix: 'b2', include: ['echo', 'headers'] }), 200);
    await ready('beta');
    const headers = await t.callTool('b2_headers', {}, key).expect(200);
    expect(headers.headers['x-quota-cost']).toBe('1');
    const sent = JSON.parse(headers.body.content[0].text as string) as Record<string, string>;
    expect(sent.authorization).toBe(`Bearer ${TOKEN}`);
    expect((await audit('beta')).map(({ action, details }) => [action, details])).toEqual([
      ['source.updated', { changes: ['prefix', 'include', 'cost'] }],
      ['source.updated', { changes: ['include', 'cost'] }],
      ['source.created', expect.anything()],
    ]);
    const [updated] = await events('source.updated', 'beta');
    expect(updated.data).toMatchObject({ changes: ['include', 'cost'], source: { name: 'beta' } });
  });

  it("creates an OpenAPI source from its document's URL: its operations served as tools", async () => {
    const api = await startFastApi();
    try {
      const body = { name: 'shop', kind: 'openapi', document: api.documentUrl, base_url: api.url };
      const res = answered(await post(body), 201);
      expect(res.body).toMatchObject({ kind: 'openapi', url: api.documentUrl, state: 'starting' });
      await ready('shop');
      const key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
      const call = await t.callTool('shop_get_item', { item_id: 'a' }, key).expect(200);
      expect(call.body).toMatchObject({ item_id: 'a' });
    } finally {
      await api.stop();
    }
  }, 30_000);

  it('removes a source with DELETE (204): its tools are gone at once', async () => {
    answered(await post(source('gamma')), 201);
    await ready('gamma');
    const key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
    await t.callTool('gamma_echo', { text: 'x' }, key).expect(200);
    await t.http().delete(`${SOURCES}/gamma`).set(admin()).expect(204);
    await t.callTool('gamma_echo', { text: 'x' }, key).expect(404);
    answered(await get('gamma'), 404);
    expect(await names()).not.toContain('gamma');
    expect(await stored('gamma')).toBeUndefined();
    await t.http().delete(`${SOURCES}/gamma`).set(admin()).expect(404);
    answered(await patch('gamma', { cost: 1 }), 404);
    expect((await audit('gamma')).map(({ action }) => action)).toEqual([
      'source.deleted',
      'source.created',
    ]);
    expect((await events('source.deleted', 'gamma'))[0].data.source).toMatchObject({
      name: 'gamma',
    });
  });

  it('refuses what the API may not create, and bad fields, with a 400 that changes nothing', async () => {
    const url = upstream.url;
    const said = (detail: string) => ({ detail });
    const cases: [unknown, unknown][] = [
      [
        { name: 'x', kind: 'mcp', command: 'node' },
        said('command is allowed in CONFIG_FILE only.'),
      ],
      [{ name: 'x', kind: 'mcp', url, args: ['a'] }, said('args is allowed in CONFIG_FILE only.')],
      [
        { name: 'x', kind: 'mcp', url, env: { A: 'b' } },
        said('env is allowed in CONFIG_FILE only.'),
      ],
      [
        { name: 'x', kind: 'openapi', document: './openapi.json', base_url: url },
        said('A file path as document is allowed in CONFIG_FILE only.'),
      ],
      [
        { name: 'x', kind: 'mcp', url, auth: { type: 'bearer', token: '${UPSTREAM_TOKEN}' } },
        said('A ${NAME} reference (in auth.token) is allowed in CONFIG_FILE only.'),
      ],
      [
        { name: 'x', kind: 'mcp', url: 'not a url' },
        said('The source URL is not a valid absolute URL.'),
      ],
      [
        { name: 'x', kind: 'mcp', url: 'http://169.254.169.254/latest' },
        { detail: expect.stringMatching(/^The source URL's address 169\.254\.169\.254 is /) },
      ],
      [{ name: 'x', kind: 'mcp' }, said('Source x: an mcp source has either url or command.')],
      [{ name: 'Not A Name', kind: 'mcp', url }, said('name must match [a-z][a-z0-9-]{0,31}.')],
      [
        { kind: 'mcp', url },
        { detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }] },
      ],
      [
        { name: 'x', kind: 'mcp', url, cost: -1, colour: 'red' },
        {
          detail: [
            {
              loc: ['body', 'cost'],
              msg: 'Input should be greater than or equal to 0',
              type: 'greater_than_equal',
            },
            {
              loc: ['body', 'colour'],
              msg: 'Extra inputs are not permitted',
              type: 'extra_forbidden',
            },
          ],
        },
      ],
      [
        { name: 'x', kind: 'mcp', url, timeout_ms: 'soon' },
        {
          detail: [
            {
              loc: ['body', 'timeout_ms'],
              msg: 'Input should be a valid number',
              type: 'float_type',
            },
          ],
        },
      ],
      [
        [1, 2],
        {
          detail: [{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }],
        },
      ],
    ];
    const before = await names();
    const trail = (await audit('x')).length;
    for (const [body, expected] of cases) {
      const res = await post(body);
      expect([res.status, res.body]).toEqual([400, expected]);
    }
    answered(await post(source('delta')), 201);
    for (const [body, expected] of [
      [{ command: 'node' }, said('command is allowed in CONFIG_FILE only.')],
      [{ url: `${url}?%E2%80%A6` }, { detail: expect.stringContaining('query string') }],
      [{ kind: 'openapi' }, said('Source delta: an openapi source has document and base_url.')],
      [{ name: 'other' }, { detail: [expect.objectContaining({ type: 'extra_forbidden' })] }],
    ] as [unknown, unknown][]) {
      const res = await patch('delta', body);
      expect([res.status, res.body]).toEqual([400, expected]);
    }
    expect(await names()).toEqual([...before, 'delta'].sort());
    expect((await audit('x')).length).toBe(trail);
    expect((await audit('delta')).map(({ action }) => action)).toEqual(['source.created']);
    expect(((await get('delta')).body as View).url).toBe(`${url}?%E2%80%A6`);
  });

  it("answers 409 for CONFIG_FILE's sources and a name taken, 403 without admin:write", async () => {
    const inFile = { detail: 'Source fixed is defined in CONFIG_FILE.' };
    expect((await post(source('fixed'))).body).toEqual(inFile);
    const changed = await patch('fixed', { cost: 9 });
    expect([changed.status, changed.body]).toEqual([409, inFile]);
    const removed = await t.http().delete(`${SOURCES}/fixed`).set(admin());
    expect([removed.status, removed.body]).toEqual([409, inFile]);
    expect(((await get('fixed')).body as View).origin).toBe('config');
    answered(await post(source('epsilon')), 201);
    const again = await post(source('epsilon'));
    expect([again.status, again.body]).toEqual([409, { detail: 'A source named epsilon exists.' }]);
    const reader = await t.createKey({ scopes: ['admin:read'] });
    await t.http().get(SOURCES).set(bearer(reader)).expect(200);
    for (const res of [
      await t.http().post(SOURCES).set(bearer(reader)).send(source('zeta')),
      await t.http().patch(`${SOURCES}/epsilon`).set(bearer(reader)).send({ cost: 3 }),
      await t.http().delete(`${SOURCES}/epsilon`).set(bearer(reader)),
    ]) {
      expect(res.status).toBe(403);
      expect(res.headers['www-authenticate']).toContain('scope="admin:write"');
    }
    expect(await names()).not.toContain('zeta');
    expect(((await get('epsilon')).body as View).tools.every(({ cost }) => cost === 2)).toBe(true);
  });

  it('brings the sources made through the API back after a restart', async () => {
    answered(await post(source('kept')), 201);
    await ready('kept');
    await t.close();
    await start();
    const view = answered(await get('kept'), 200).body as View;
    expect(view).toMatchObject({ name: 'kept', origin: 'api' });
    await ready('kept');
    const key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
    const sent = await t.callTool('kept_headers', {}, key).expect(200);
    expect(JSON.parse(sent.body.content[0].text as string)).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
    });
  }, 60_000);

  (usingSharedRedis() ? it : it.skip)(
    'shows two instances on one Redis what either made, changed and removed',
    async () => {
      const other = await startApp({ dataDir, env });
      try {
        answered(await post(source('shared')), 201);
        await ready('shared', other);
        const key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
        await eventually(
          async () => (await other.callTool('shared_echo', { text: 'b' }, key)).status === 200,
        );
        answered(await patch('shared', { include: ['echo'] }, other), 200);
        await eventually(async () => ((await get('shared')).body as View).tools.length === 1);
        await other.http().delete(`${SOURCES}/shared`).set(bearer(other.adminKey)).expect(204);
        answered(await get('shared'), 404);
        await eventually(
          async () => (await t.callTool('shared_echo', { text: 'a' }, key)).status === 404,
        );
      } finally {
        await other.close();
      }
    },
    60_000,
  );
});
