import { Clock } from '../../src/kernel/common/clock';
import { SEARCH_BUDGET_TOKEN } from '../../src/kernel/common/bounded-search';
import { InvocationStore } from '../../src/invocations/invocation.store';
import { bearer, startApp, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';
import { gate, GatedToolModule } from '../support/gated-tool.module';
import { TokenIssuer } from '../support/oauth/token-issuer';

const ADMIN = '/api/v1/admin';

const queryIssue = (name: string, type: string, msg: string) => ({
  detail: [{ loc: ['query', name], msg, type }],
});

/** The relative URL of a `Link: <...>; rel="next"` header, or undefined. */
function nextOf(link: string | undefined): string | undefined {
  return link?.match(/^<([^>]+)>; rel="next"$/)?.[1];
}

describe("the console's admin routes (e2e)", () => {
  const clock = new FakeClock(new Date('2031-03-10T12:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({
      imports: [GatedToolModule],
      configure: (b) => b.overrideProvider(Clock).useValue(clock),
    });
  });
  afterAll(() => t.close());

  const admin = () => bearer(t.adminKey);
  /** The app's clock a second on: what is made next sorts after what was made before. */
  const tick = () => clock.set(new Date(clock.now().getTime() + 1000));
  const get = (path: string, key = t.adminKey) => t.http().get(path).set(bearer(key));
  const call = (key: string, tool = 'greet', body: object = { name: 'Ada' }) =>
    t.http().post(`/api/v1/services/${tool}`).set(bearer(key)).send(body);

  describe('who may ask', () => {
    const routes = [
      'usage',
      'usage/top',
      'errors',
      'issuers',
      'plans',
      'tools',
      'api-keys',
      'audit',
      'invocations',
    ];

    it.each(routes)('GET /api/v1/admin/%s needs a key (401) and admin:read (403)', async (path) => {
      const none = await t.http().get(`${ADMIN}/${path}`);
      expect([none.status, none.body]).toEqual([401, { detail: 'Not authenticated' }]);
      const standard = await t.createKey({ scope_template: 'standard' });
      const refused = await get(`${ADMIN}/${path}`, standard);
      expect([refused.status, refused.body]).toEqual([
        403,
        { detail: 'Insufficient permissions for this operation.' },
      ]);
      const reader = await t.createKey({ scopes: ['admin:read'] });
      expect((await get(`${ADMIN}/${path}`, reader)).status).toBe(200);
    });
  });

  describe('usage of every key', () => {
    // An app of its own, on a day of its own: it counts every call of the deployment.
    const own = new FakeClock(new Date('2032-05-20T08:00:00.000Z'));
    let u: TestApp;

    let issuer: TokenIssuer;
    const PUBLIC_URL = 'https://tis.example';
    const DEAD_ISSUER = 'http://127.0.0.1:9';

    beforeAll(async () => {
      issuer = await TokenIssuer.start();
      u = await startApp({
        imports: [GatedToolModule],
        env: { PUBLIC_URL, OAUTH_ISSUERS: `${issuer.issuer},${DEAD_ISSUER}` },
        configure: (b) => b.overrideProvider(Clock).useValue(own),
      });
    });
    afterAll(async () => {
      await u.close();
      await issuer.stop();
    });

    it('sums every key and principal by day and tool from the usage counters, today first', async () => {
      const ada = await u.createKeyWithId({ name: 'ada', plan: 'unlimited' });
      const bob = await u.createKeyWithId({ name: 'bob', plan: 'unlimited' });
      // Two days ago: ada greets 3 times.
      own.set(new Date('2032-05-18T09:00:00.000Z'));
      for (let i = 0; i < 3; i++)
        await u
          .http()
          .post('/api/v1/services/greet')
          .set(bearer(ada.key))
          .send({ name: 'A' })
          .expect(200);
      // Today: bob greets twice and fails a gated call; ada greets once.
      own.set(new Date('2032-05-20T08:00:00.000Z'));
      for (let i = 0; i < 2; i++)
        await u
          .http()
          .post('/api/v1/services/greet')
          .set(bearer(bob.key))
          .send({ name: 'B' })
          .expect(200);
      await u
        .http()
        .post('/api/v1/services/gated')
        .set(bearer(bob.key))
        .send({ fail: true })
        .expect(500);
      await u
        .http()
        .post('/api/v1/services/greet')
        .set(bearer(ada.key))
        .send({ name: 'A' })
        .expect(200);

      // And a principal, through an access token: 2 greets today.
      const token = await issuer.sign({ sub: 'carol', aud: PUBLIC_URL, scope: 'services:execute' });
      for (let i = 0; i < 2; i++) {
        await u
          .http()
          .post('/api/v1/services/greet')
          .set(bearer(token))
          .send({ name: 'C' })
          .expect(200);
      }

      const res = await u.http().get(`${ADMIN}/usage?days=3`).set(bearer(u.adminKey)).expect(200);
      expect(res.body).toEqual({
        days: 3,
        totals: { calls: 9, credits: 9, failed: 1 },
        subjects: 3,
        history: [
          {
            date: '2032-05-20',
            calls: 6,
            credits: 6,
            failed: 1,
            by_tool: {
              greet: { calls: 5, credits: 5, failed: 0 },
              gated: { calls: 1, credits: 1, failed: 1 },
            },
          },
          { date: '2032-05-19', calls: 0, credits: 0, failed: 0, by_tool: {} },
          {
            date: '2032-05-18',
            calls: 3,
            credits: 3,
            failed: 0,
            by_tool: { greet: { calls: 3, credits: 3, failed: 0 } },
          },
        ],
      });
      // The default is 30 days; a day out of the window is not counted.
      const today = await u.http().get(`${ADMIN}/usage?days=1`).set(bearer(u.adminKey)).expect(200);
      expect(today.body.totals).toEqual({ calls: 6, credits: 6, failed: 1 });
      const month = await u.http().get(`${ADMIN}/usage`).set(bearer(u.adminKey)).expect(200);
      expect(month.body.days).toBe(30);
      expect(month.body.history).toHaveLength(30);
      expect(month.body.totals).toEqual({ calls: 9, credits: 9, failed: 1 });

      const top = await u
        .http()
        .get(`${ADMIN}/usage/top?days=3`)
        .set(bearer(u.adminKey))
        .expect(200);
      const carol = {
        kind: 'principal',
        id: expect.stringMatching(/^prn_[0-9a-f]{32}$/),
        name: 'carol',
        calls: 2,
        credits: 2,
        failed: 0,
      };
      expect(top.body).toEqual({
        days: 3,
        callers: [
          { kind: 'key', id: ada.id, name: 'ada', calls: 4, credits: 4, failed: 0 },
          { kind: 'key', id: bob.id, name: 'bob', calls: 3, credits: 3, failed: 1 },
          carol,
        ],
        tools: [
          { tool: 'greet', calls: 8, credits: 8, failed: 0 },
          { tool: 'gated', calls: 1, credits: 1, failed: 1 },
        ],
      });
      const first = await u.http().get(`${ADMIN}/usage/top?days=1&limit=1`).set(bearer(u.adminKey));
      expect(first.body.callers).toEqual([
        { kind: 'key', id: bob.id, name: 'bob', calls: 3, credits: 3, failed: 1 },
      ]);
      expect(first.body.tools).toEqual([{ tool: 'greet', calls: 5, credits: 5, failed: 0 }]);
    });

    it('tells which issuer answers and which does not', async () => {
      const res = await u.http().get(`${ADMIN}/issuers`).set(bearer(u.adminKey)).expect(200);
      expect(res.body).toEqual({
        issuers: [
          { issuer: issuer.issuer, status: 'ok', failure: null },
          { issuer: DEAD_ISSUER, status: 'failing', failure: expect.any(String) },
        ],
      });
    });
  });

  it('answers bad days and limits with query 400s', async () => {
    const cases: [string, object][] = [
      [
        'usage?days=0',
        queryIssue('days', 'greater_than_equal', 'Input should be greater than or equal to 1'),
      ],
      [
        'usage?days=91',
        queryIssue('days', 'less_than_equal', 'Input should be less than or equal to 90'),
      ],
      [
        'usage/top?limit=101',
        queryIssue('limit', 'less_than_equal', 'Input should be less than or equal to 100'),
      ],
      [
        'api-keys?status=lost',
        queryIssue(
          'status',
          'value_error',
          'Value error, expected one of: active, disabled, expired, revoked',
        ),
      ],
      [
        'api-keys?cursor=bm90LW91cnM',
        queryIssue(
          'cursor',
          'value_error',
          'Value error, this cursor was not issued by the service',
        ),
      ],
      [
        'api-keys?q=' + 'x'.repeat(201),
        queryIssue('q', 'value_error', 'Value error, expected 1 to 200 characters'),
      ],
      [
        'audit?action=api_key.delete',
        queryIssue(
          'action',
          'value_error',
          'Value error, expected one of: api_key.create, api_key.update, api_key.rotate, api_key.revoke, config.set, doctor.fix, principal.update, principal.delete, webhook.created, webhook.updated, webhook.secret_rotated, webhook.deleted, webhook.disabled, run.created, run.updated, run.deleted, source.created, source.updated, source.deleted',
        ),
      ],
      [
        'audit?actor=someone',
        queryIssue('actor', 'value_error', 'Value error, expected a key id, a principal id or cli'),
      ],
      [
        'invocations?status=done',
        queryIssue(
          'status',
          'value_error',
          'Value error, expected one of: queued, running, succeeded, failed, cancelled, timed_out',
        ),
      ],
      [
        'invocations?cursor=bm90LW91cnM',
        queryIssue(
          'cursor',
          'value_error',
          'Value error, this cursor was not issued by the service',
        ),
      ],
    ];
    for (const [query, body] of cases) {
      const res = await get(`${ADMIN}/${query}`);
      expect([query, res.status, res.body]).toEqual([query, 400, body]);
    }
  });

  it("counts this instance's error answers by status", async () => {
    const before = (await get(`${ADMIN}/errors`).expect(200)).body;
    await t.http().get('/api/v1/auth/me').expect(401);
    await t
      .http()
      .get('/api/v1/auth/me')
      .set(bearer(`sk_${'0'.repeat(64)}`))
      .expect(401);
    await get('/api/v1/auth/api-keys/key_0000000000000000').expect(404);
    const after = (await get(`${ADMIN}/errors`).expect(200)).body;
    const count = (body: { statuses: { status: number; count: number }[] }, status: number) =>
      body.statuses.find((s) => s.status === status)?.count ?? 0;
    expect(count(after, 401) - count(before, 401)).toBe(2);
    expect(count(after, 404) - count(before, 404)).toBe(1);
    expect(after.since).toBe(before.since);
    expect(after.statuses.every((s: { status: number }) => s.status >= 400)).toBe(true);
  });

  it('finds keys by name, prefix, id and status, a page at a time', async () => {
    const made: { id: string; key: string }[] = [];
    for (const name of ['Search Alpha', 'search beta', 'search gamma', 'other']) {
      made.push(await t.createKeyWithId({ name }));
      tick();
    }
    await t
      .http()
      .patch(`/api/v1/auth/api-keys/${made[1].id}`)
      .set(admin())
      .send({ enabled: false })
      .expect(200);
    const names = (res: { body: { name: string }[] }) => res.body.map((k) => k.name);

    const all = await get(`${ADMIN}/api-keys?q=SEARCH`).expect(200);
    expect(names(all)).toEqual(['Search Alpha', 'search beta', 'search gamma']);
    expect(all.headers.link).toBeUndefined();
    expect(all.body[0]).not.toHaveProperty('key');
    expect(all.body[0]).not.toHaveProperty('hash');

    const disabled = await get(`${ADMIN}/api-keys?q=search&status=disabled`).expect(200);
    expect(names(disabled)).toEqual(['search beta']);
    const byPrefix = await get(`${ADMIN}/api-keys?q=${made[2].key.slice(0, 11)}`).expect(200);
    expect(names(byPrefix)).toEqual(['search gamma']);
    const byId = await get(`${ADMIN}/api-keys?q=${made[3].id}`).expect(200);
    expect(names(byId)).toEqual(['other']);

    const first = await get(`${ADMIN}/api-keys?q=search&limit=2`).expect(200);
    expect(names(first)).toEqual(['Search Alpha', 'search beta']);
    const next = nextOf(first.headers.link);
    expect(next).toMatch(/^\/api\/v1\/admin\/api-keys\?limit=2&cursor=[A-Za-z0-9_-]+&q=search$/);
    const second = await get(next as string).expect(200);
    expect(names(second)).toEqual(['search gamma']);
    expect(second.headers.link).toBeUndefined();
  });

  it('reads at most SEARCH_BUDGET records a page, and says where the next page starts', async () => {
    // An app of its own, whose searches read 3 records a page.
    const own = await startApp({
      configure: (b) => b.overrideProvider(SEARCH_BUDGET_TOKEN).useValue(3),
    });
    try {
      const names = (res: { body: { name: string }[] }) => res.body.map((k) => k.name);
      const search = (path: string) => own.http().get(path).set(bearer(own.adminKey)).expect(200);
      for (const name of ['filler 1', 'filler 2', 'needle 1', 'filler 3', 'needle 2']) {
        await own.createKey({ name });
      }
      // The initial admin key and two fillers read: nothing found yet, and where to go on.
      const first = await search(`${ADMIN}/api-keys?q=needle`);
      expect(names(first)).toEqual([]);
      const second = await search(nextOf(first.headers.link) as string);
      expect(names(second)).toEqual(['needle 1', 'needle 2']);
      // The budget ran out on the last key: one more page, empty, to learn that.
      const third = await search(nextOf(second.headers.link) as string);
      expect(names(third)).toEqual([]);
      expect(third.headers.link).toBeUndefined();
      // The audit trail likewise: six creations (none by the CLI), newest first, three a page.
      const ids = (await search('/api/v1/audit')).body.entries.map((e: { id: number }) => e.id);
      expect(ids).toHaveLength(6);
      const first3 = await search(`${ADMIN}/audit?actor=cli`);
      expect(first3.body).toEqual({ entries: [], next_before: ids[2], next_cursor: `${ids[2]}` });
      const last3 = await search(`${ADMIN}/audit?actor=cli&cursor=${ids[2]}`);
      expect(last3.body).toEqual({ entries: [], next_before: ids[5], next_cursor: `${ids[5]}` });
      // The deprecated `before` reads as `cursor` does.
      const none = await search(`${ADMIN}/audit?actor=cli&before=${ids[5]}`);
      expect(none.body).toEqual({ entries: [], next_before: null, next_cursor: null });
    } finally {
      await own.close();
    }
  });

  it('searches the audit trail by action and actor, newest first, a page at a time', async () => {
    const other = await t.createKeyWithId({
      name: 'second admin',
      scopes: ['*'],
    });
    const target = await t.createKeyWithId({ name: 'audited' });
    await t
      .http()
      .patch(`/api/v1/auth/api-keys/${target.id}`)
      .set(bearer(other.key))
      .send({ name: 'audited 2' })
      .expect(200);
    await t
      .http()
      .patch(`/api/v1/auth/api-keys/${target.id}`)
      .set(bearer(other.key))
      .send({ name: 'audited 3' })
      .expect(200);
    await t
      .http()
      .patch(`/api/v1/auth/api-keys/${target.id}`)
      .set(admin())
      .send({ name: 'audited 4' })
      .expect(200);

    const byOther = await get(`${ADMIN}/audit?actor=${other.id}`).expect(200);
    expect(
      byOther.body.entries.map((e: { details: { name: { to: string } } }) => e.details.name.to),
    ).toEqual(['audited 3', 'audited 2']);
    expect(byOther.body.next_before).toBeNull();

    const updates = await get(`${ADMIN}/audit?action=api_key.update&limit=2`).expect(200);
    expect(updates.body.entries).toHaveLength(2);
    expect(
      updates.body.entries.every((e: { action: string }) => e.action === 'api_key.update'),
    ).toBe(true);
    expect(updates.body.entries[0].details.name.to).toBe('audited 4');
    const older = await get(
      `${ADMIN}/audit?action=api_key.update&limit=2&before=${updates.body.next_before}`,
    ).expect(200);
    expect(older.body.entries[0].details.name.to).toBe('audited 2');
    expect(older.body.entries[0].id).toBeLessThan(updates.body.entries[1].id);

    const both = await get(`${ADMIN}/audit?action=api_key.create&actor=${other.id}`).expect(200);
    expect(both.body).toEqual({ entries: [], next_before: null, next_cursor: null });
  });

  it('filters the audit trail by every action it records, principal.delete included', async () => {
    for (const action of [
      'api_key.create',
      'api_key.update',
      'api_key.rotate',
      'api_key.revoke',
      'config.set',
      'doctor.fix',
      'principal.update',
      'principal.delete',
      'webhook.created',
      'webhook.updated',
      'webhook.secret_rotated',
      'webhook.deleted',
      'webhook.disabled',
      'run.created',
      'run.updated',
      'run.deleted',
      'source.created',
      'source.updated',
      'source.deleted',
    ]) {
      const res = await get(`${ADMIN}/audit?action=${action}`);
      expect([action, res.status]).toEqual([action, 200]);
      expect(res.body.entries.every((e: { action: string }) => e.action === action)).toBe(true);
    }
  });

  it("lists every caller's long-running calls, newest first, each with its caller", async () => {
    const a = await t.createKeyWithId({ name: 'async a', plan: 'unlimited' });
    const b = await t.createKeyWithId({ name: 'async b', plan: 'unlimited' });
    gate.close();
    try {
      const started: { id: string; caller: string }[] = [];
      for (const key of [a, b, a]) {
        const res = await call(key.key, 'gated', { label: key.id }).set('Prefer', 'respond-async');
        expect(res.status).toBe(202);
        started.push({ id: res.body.id as string, caller: key.id });
        tick();
      }
      const all = await get(`${ADMIN}/invocations?status=running`).expect(200);
      const ours = all.body.filter((v: { id: string }) => started.some((s) => s.id === v.id));
      expect(ours.map((v: { id: string; caller_id: string }) => [v.id, v.caller_id])).toEqual(
        started.reverse().map((s) => [s.id, s.caller]),
      );
      expect(ours[0]).toMatchObject({ tool: 'gated', status: 'running', result: null });
      // A caller of its own sees only its own.
      const own = await get('/api/v1/invocations', a.key).expect(200);
      expect(own.body.map((v: { id: string }) => v.id).sort()).toEqual(
        started
          .filter((s) => s.caller === a.id)
          .map((s) => s.id)
          .sort(),
      );
      const page = await get(`${ADMIN}/invocations?limit=2`).expect(200);
      expect(page.body).toHaveLength(2);
      const rest = await get(nextOf(page.headers.link) as string).expect(200);
      expect(rest.body[0].id).toBe(started[2].id);
    } finally {
      gate.release();
    }
  });

  it("forgets a call from the operators' list once its record expired (the hourly purge)", async () => {
    const key = await t.createKeyWithId({ name: 'purged', plan: 'unlimited' });
    const accepted = await call(key.key, 'gated', {}).set('Prefer', 'respond-async').expect(202);
    const id = accepted.body.id as string;
    const store = t.app.get(InvocationStore);
    while ((await store.get(id))?.status !== 'succeeded') await new Promise(setImmediate);
    // Its day after it ended is over.
    await store.update(id, { expires_ms: Date.now() - 1_000 }, ['succeeded']);
    expect(await store.purge(Date.now())).toBeGreaterThanOrEqual(1);
    expect((await store.listAll({ limit: 1_000 })).map((r) => r.id)).not.toContain(id);
    const listed = await get(`${ADMIN}/invocations`).expect(200);
    expect(listed.body.map((v: { id: string }) => v.id)).not.toContain(id);
  });

  it('tells the plans, and every tool with its price on each plan and its hints', async () => {
    const plans = await get(`${ADMIN}/plans`).expect(200);
    expect(plans.body.plans).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'free', daily_limit: 100, default: true, tool_costs: {} }),
        expect.objectContaining({ name: 'pro', monthly_limit: 200000, default: false }),
      ]),
    );
    const tools = await get(`${ADMIN}/tools`).expect(200);
    const greet = tools.body.tools.find((tool: { name: string }) => tool.name === 'greet');
    expect(greet).toMatchObject({
      name: 'greet',
      title: 'Greet',
      path: '/api/v1/services/greet',
      scope: 'services:execute:greet',
      cost: 1,
      cost_by_plan: { free: 1, pro: 1, unlimited: 1 },
      annotations: { readOnlyHint: true, openWorldHint: false },
      input_schema: { type: 'object', required: ['name'] },
    });
    const doctor = tools.body.tools.find((tool: { name: string }) => tool.name === 'doctor');
    expect(doctor.annotations.readOnlyHint).toBe(false);
  });

  it('names no issuer without OAuth', async () => {
    expect((await get(`${ADMIN}/issuers`).expect(200)).body).toEqual({ issuers: [] });
  });

  it('is in the OpenAPI document, each route with its operationId', async () => {
    const doc = (await t.http().get('/openapi.json').expect(200)).body;
    const ids = Object.entries(
      doc.paths as Record<string, Record<string, { operationId?: string }>>,
    )
      .filter(([path]) => path.startsWith('/api/v1/admin/'))
      .map(([path, item]) => `${path} ${item.get?.operationId}`)
      .sort();
    expect(ids).toEqual([
      '/api/v1/admin/api-keys searchApiKeys',
      '/api/v1/admin/audit searchAuditEntries',
      '/api/v1/admin/errors getErrorCounts',
      '/api/v1/admin/invocations listAllInvocations',
      '/api/v1/admin/issuers getIssuerHealth',
      '/api/v1/admin/plans listPlans',
      '/api/v1/admin/tools listToolDetails',
      '/api/v1/admin/usage getUsageTotals',
      '/api/v1/admin/usage/top getTopUsage',
    ]);
    expect(Object.keys(doc.paths)).not.toContain('/console');
  });
});
