import { Clock } from '../../src/kernel/common/clock';
import { bearer, startApp, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';
import { TokenIssuer } from '../support/oauth/token-issuer';
import { PricedToolsModule } from '../support/priced-tools.module';
import { freePort } from '../support/redis';
import { narrowGate, probe, RuntimeToolsModule } from '../support/runtime-tools.module';

/** Runs over REST: a budget and a token of their own, the parent's limits and scopes beside. */
describe('runs (e2e)', () => {
  let app: TestApp;

  beforeEach(async () => {
    app = await startApp();
  });
  afterEach(() => app.close());

  const greet = (token: string, name = 'run') =>
    app.http().post('/api/v1/services/greet').set(bearer(token)).send({ name });

  async function newRun(
    parent: string,
    body: Record<string, unknown> = { budget: 3 },
  ): Promise<{ id: string; token: string; body: Record<string, unknown> }> {
    const res = await app.http().post('/api/v1/runs').set(bearer(parent)).send(body).expect(201);
    return { id: res.body.id as string, token: res.body.token as string, body: res.body };
  }

  it('makes a run whose token calls tools within its budget, then 402 with the run text', async () => {
    const parent = await app.createKeyWithId({ rate_limit: 1000 });
    const created = await newRun(parent.key, {
      budget: 2,
      label: 'triage',
      metadata: { t: 'OPS-1' },
    });
    expect(created.token).toMatch(/^sk_run_[0-9a-f]{64}$/);
    expect(created.body).toMatchObject({
      budget: 2,
      spent: 0,
      remaining: 2,
      status: 'active',
      label: 'triage',
      metadata: { t: 'OPS-1' },
      parent: { kind: 'key', id: parent.id },
      scopes: ['services:read', 'services:execute'],
    });

    const first = await greet(created.token).expect(200);
    expect(first.headers['x-run-budget-remaining']).toBe('1');
    await greet(created.token).expect(200);
    const refused = await greet(created.token).expect(402);
    expect(refused.body).toEqual({ detail: 'Run budget exhausted (2/2).' });
    expect(refused.headers['retry-after']).toBeUndefined();

    const shown = await app.http().get(`/api/v1/runs/${created.id}`).set(bearer(parent.key));
    expect(shown.body).toMatchObject({ spent: 2, remaining: 0, spent_by_tool: { greet: 2 } });
    // The parent's own usage counts the run's calls.
    const usage = await app.http().get('/api/v1/usage').set(bearer(parent.key)).expect(200);
    expect(usage.body.used).toBe(2);
  });

  it('lists each run with what it spent, as its own route shows it, for its parent and admin:read', async () => {
    const parent = await app.createKeyWithId({ rate_limit: 1000 });
    const spentAll = await newRun(parent.key, { budget: 5 });
    for (let i = 0; i < 5; i++) await greet(spentAll.token).expect(200);
    const spentOne = await newRun(parent.key, { budget: 4 });
    await greet(spentOne.token).expect(200);
    const untouched = await newRun(parent.key, { budget: 2 });

    const alone = await app.http().get(`/api/v1/runs/${spentAll.id}`).set(bearer(parent.key));
    expect(alone.body).toMatchObject({ spent: 5, remaining: 0 });
    const expected = {
      [spentAll.id]: { budget: 5, spent: 5, remaining: 0 },
      [spentOne.id]: { budget: 4, spent: 1, remaining: 3 },
      [untouched.id]: { budget: 2, spent: 0, remaining: 2 },
    };
    for (const credential of [parent.key, app.adminKey]) {
      const res = await app
        .http()
        .get(`/api/v1/runs?parent=${parent.id}`)
        .set(bearer(credential))
        .expect(200);
      const runs = res.body.runs as { id: string; budget: number; spent: number }[];
      const shown = Object.fromEntries(
        runs.map(({ id, budget, spent, remaining }: Record<string, unknown>) => [
          id,
          { budget, spent, remaining },
        ]),
      );
      expect(shown).toEqual(expected);
      // A list shows the totals; what went to each tool is the run's own route's.
      expect(runs.every((run) => !('spent_by_tool' in run))).toBe(true);
    }
  });

  it('refuses the token at once after DELETE, and never lets a run make a run or reach admin routes', async () => {
    const parent = await app.createKeyWithId({ scopes: ['*'] });
    const run = await newRun(parent.key);
    await app.http().post('/api/v1/runs').set(bearer(run.token)).send({ budget: 1 }).expect(403);
    await app.http().get('/api/v1/auth/api-keys').set(bearer(run.token)).expect(403);
    await app.http().get('/api/v1/ledger').set(bearer(run.token)).expect(403);
    const ended = await app.http().delete(`/api/v1/runs/${run.id}`).set(bearer(parent.key));
    expect(ended.body).toMatchObject({ status: 'ended', ended_reason: 'deleted' });
    const refused = await greet(run.token).expect(401);
    expect(refused.body).toEqual({ detail: 'Run has ended.' });
  });

  it('ends with its parent: a revoked key takes its runs with it', async () => {
    const parent = await app.createKeyWithId();
    const run = await newRun(parent.key);
    await greet(run.token).expect(200);
    await app.http().delete(`/api/v1/auth/api-keys/${parent.id}`).set(bearer(app.adminKey));
    await greet(run.token).expect(401);
    const shown = await app.http().get(`/api/v1/runs/${run.id}`).set(bearer(app.adminKey));
    expect(shown.body).toMatchObject({ status: 'ended', ended_reason: 'parent_revoked' });
  });

  it('writes a ledger entry per counted call, and none for a refusal', async () => {
    const parent = await app.createKeyWithId();
    const run = await newRun(parent.key, { budget: 1 });
    await greet(run.token).expect(200);
    await greet(run.token).expect(402);
    await greet(parent.key).set('Idempotency-Key', 'k1').expect(200);
    await greet(parent.key).set('Idempotency-Key', 'k1').expect(200);
    const page = await app
      .http()
      .get(`/api/v1/ledger?subject=key:${parent.id}`)
      .set(bearer(app.adminKey))
      .expect(200);
    expect(page.body.entries).toHaveLength(2);
    expect(page.body.entries[0]).toMatchObject({
      subject: { kind: 'key', id: parent.id, external_id: null },
      run_id: run.id,
      tool: 'greet',
      credits: 1,
      kind: 'charge',
      transport: 'rest',
    });
    expect(page.body.entries[1]).toMatchObject({ run_id: null, idempotency_key: 'k1' });
    const csv = await app
      .http()
      .get(`/api/v1/ledger?subject=key:${parent.id}`)
      .set(bearer(app.adminKey))
      .set('Accept', 'text/csv')
      .expect(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.text.split('\r\n')).toHaveLength(4);
  });
});

const RUNS = '/api/v1/runs';
const FORBIDDEN = { detail: 'Insufficient permissions for this operation.' };

/** Polls `read` until `done` holds of its value (at most ~10 s). */
async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('condition not met in time');
}

/**
 * The rest of the runs' contract over REST, on one app whose clock the test moves (runs made a
 * second apart list in a known order; nothing here waits for time to pass): what a run may be made
 * with, what it may reach, the order of the 402s, its headers, its Idempotency-Keys, lists, changes,
 * the audit trail, and its long-running calls cancelled and refunded when it ends. Every test has
 * keys of its own. (At most 1,000 active runs per parent is shown by src/runs/run.store.spec.ts:
 * reaching 1,000 over HTTP is slow.)
 */
describe('runs: the contract over REST (e2e)', () => {
  let app: TestApp;
  const clock = new FakeClock(new Date());
  const ORIGIN = 'https://console.example';

  beforeAll(async () => {
    app = await startApp({
      env: { CORS_ORIGINS: ORIGIN },
      imports: [RuntimeToolsModule, PricedToolsModule],
      configure: (builder) => builder.overrideProvider(Clock).useValue(clock),
    });
  });
  afterAll(async () => {
    narrowGate.release();
    await app.close();
  });
  beforeEach(() => {
    clock.set(new Date());
    probe.reset();
    narrowGate.release();
  });

  /** The clock a second on: the next run made is newer by its id. */
  const tick = () => clock.set(new Date(clock.nowMs() + 1000));
  const admin = () => bearer(app.adminKey);
  const greet = (token: string, name = 'run') =>
    app.http().post('/api/v1/services/greet').set(bearer(token)).send({ name });
  const newRun = async (parent: string, body: Record<string, unknown> = { budget: 3 }) => {
    const res = await app.http().post(RUNS).set(bearer(parent)).send(body);
    expect(res.status).toBe(201);
    return res.body as { id: string; token: string } & Record<string, unknown>;
  };
  const runOf = async (id: string, credential = app.adminKey) =>
    (await app.http().get(`${RUNS}/${id}`).set(bearer(credential)).expect(200)).body as Record<
      string,
      unknown
    >;
  const usedBy = async (keyId: string) =>
    (await app.http().get(`/api/v1/auth/api-keys/${keyId}/usage`).set(admin()).expect(200)).body
      .used as number;
  const key = (body: Record<string, unknown> = {}) =>
    app.createKeyWithId({ rate_limit: 1000, ...body });

  it('refuses a run that breaks a rule (400 or 403 {detail}) and creates nothing', async () => {
    const parent = await key({ scopes: ['services:read', 'services:execute:greet'] });
    const wildcard = await key({ scopes: ['*'] });
    const pairs = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));
    const bad: [string, Record<string, unknown>, number, unknown][] = [
      [parent.key, {}, 400, ['body', 'budget']],
      [parent.key, { budget: 0 }, 400, ['body', 'budget']],
      [parent.key, { budget: 1_000_000_001 }, 400, ['body', 'budget']],
      [parent.key, { budget: 2.5 }, 400, ['body', 'budget']],
      [parent.key, { budget: '5' }, 400, ['body', 'budget']],
      [parent.key, { budget: 5, ttl_seconds: 59 }, 400, ['body', 'ttl_seconds']],
      [parent.key, { budget: 5, ttl_seconds: 604_801 }, 400, ['body', 'ttl_seconds']],
      [parent.key, { budget: 5, metadata: pairs(17) }, 400, ['body', 'metadata']],
      [parent.key, { budget: 5, metadata: { n: 1 } }, 400, ['body', 'metadata', 'n']],
      [
        parent.key,
        { budget: 5, metadata: { ['k'.repeat(65)]: 'v' } },
        400,
        ['body', 'metadata', 'k'.repeat(65)],
      ],
      [parent.key, { budget: 5, metadata: { k: 'v'.repeat(501) } }, 400, ['body', 'metadata', 'k']],
      [parent.key, { budget: 5, metadata: ['a'] }, 400, ['body', 'metadata']],
      [parent.key, { budget: 5, label: '' }, 400, ['body', 'label']],
      [parent.key, { budget: 5, label: 'a\u0007b' }, 400, ['body', 'label']],
      [parent.key, { budget: 5, label: 'x'.repeat(201) }, 400, ['body', 'label']],
      [parent.key, { budget: 5, owner: 'me' }, 400, ['body', 'owner']],
      [parent.key, { budget: 5, token: 'sk_run_' + '0'.repeat(64) }, 400, ['body', 'token']],
      // A tool scope the creator lacks, and scopes no run may hold, even from a creator holding them.
      [parent.key, { budget: 5, scopes: ['services:execute:config_show'] }, 403, undefined],
      [parent.key, { budget: 5, scopes: ['services:execute'] }, 403, undefined],
      [parent.key, { budget: 5, scopes: ['admin:read'] }, 403, undefined],
      [wildcard.key, { budget: 5, scopes: ['admin:write'] }, 403, undefined],
      [wildcard.key, { budget: 5, scopes: ['admin:read', 'services:execute'] }, 403, undefined],
      [wildcard.key, { budget: 5, scopes: ['*'] }, 403, undefined],
      [wildcard.key, { budget: 5, scopes: [] }, 403, undefined],
    ];
    for (const [credential, body, status, loc] of bad) {
      const res = await app.http().post(RUNS).set(bearer(credential)).send(body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), status]);
      expect(Object.keys(res.body as object)).toEqual(['detail']);
      if (loc === undefined) {
        expect(typeof res.body.detail).toBe('string');
      } else {
        expect(res.body.detail).toEqual([expect.objectContaining({ loc })]);
      }
    }
    // The wildcard key holds admin:read, whose list is every run of the app: its own by `parent`.
    for (const [credential, id] of [
      [parent.key, parent.id],
      [wildcard.key, wildcard.id],
    ]) {
      const listed = await app
        .http()
        .get(`${RUNS}?parent=${id}`)
        .set(bearer(credential))
        .expect(200);
      expect(listed.body).toEqual({ runs: [], next_cursor: null });
    }
    const all = await app.http().get(`${RUNS}?parent=${parent.id}`).set(admin()).expect(200);
    expect(all.body.runs).toEqual([]);
    const audit = await app.http().get('/api/v1/admin/audit?action=run.created').set(admin());
    const actors = (audit.body.entries as { actor_key_id: string }[]).map((e) => e.actor_key_id);
    expect(actors).not.toContain(parent.id);
    expect(actors).not.toContain(wildcard.id);
  });

  it("takes the bounds themselves, and by default the creator's tool scopes", async () => {
    const parent = await key({ scopes: ['services:read', 'services:execute:greet', 'admin:read'] });
    const pairs = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, `v${i}`]));
    const low = await newRun(parent.key, { budget: 1, ttl_seconds: 60, metadata: pairs });
    expect(low).toMatchObject({
      budget: 1,
      metadata: pairs,
      // The creator's tool scopes, never its admin one.
      scopes: ['services:read', 'services:execute:greet'],
      label: null,
      ended_reason: null,
      ended_at: null,
    });
    expect(Date.parse(low.expires_at as string) - Date.parse(low.created_at as string)).toBe(
      60_000,
    );
    const high = await newRun(parent.key, { budget: 1_000_000_000, ttl_seconds: 604_800 });
    expect(Date.parse(high.expires_at as string) - Date.parse(high.created_at as string)).toBe(
      604_800_000,
    );
    const byDefault = await newRun(parent.key, { budget: 1 });
    expect(
      Date.parse(byDefault.expires_at as string) - Date.parse(byDefault.created_at as string),
    ).toBe(86_400_000);
    // A wildcard creator's runs take discovery and every tool.
    const wildcard = await key({ scopes: ['*'] });
    expect((await newRun(wildcard.key, { budget: 1 })).scopes).toEqual([
      'services:read',
      'services:execute',
    ]);
  });

  it('shows the token once (no-store, Location), never in a view or a list; an unknown token is 401', async () => {
    const parent = await key();
    const res = await app.http().post(RUNS).set(bearer(parent.key)).send({ budget: 1 }).expect(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.location).toBe(`${RUNS}/${res.body.id}`);
    expect(res.body.id).toMatch(/^run_[0-9a-f]{32}$/);
    const shown = await runOf(res.body.id as string, parent.key);
    expect(shown).not.toHaveProperty('token');
    expect(JSON.stringify(shown)).not.toContain(res.body.token);
    const listed = await app.http().get(RUNS).set(bearer(parent.key));
    expect(JSON.stringify(listed.body)).not.toContain(res.body.token);
    // A token of the right shape that no run has: 401, as any unknown credential.
    const unknown = await greet(`sk_run_${'ab'.repeat(32)}`).expect(401);
    expect(unknown.body).toEqual({ detail: 'Invalid API key' });
  });

  it('reaches no admin route and creates nothing, even when its parent holds every scope', async () => {
    const parent = await key({ scopes: ['*'] });
    const run = await newRun(parent.key, { budget: 10 });
    const as = bearer(run.token);
    const keyPath = `/api/v1/auth/api-keys/${parent.id}`;
    const routes: [method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: object][] = [
      ['get', '/api/v1/auth/api-keys'],
      ['post', '/api/v1/auth/api-keys', { name: 'from a run' }],
      ['get', keyPath],
      ['patch', keyPath, { daily_limit: 1 }],
      ['post', `${keyPath}/rotate`, {}],
      ['delete', keyPath],
      ['get', `${keyPath}/usage`],
      ['get', '/api/v1/auth/principals'],
      ['get', '/api/v1/audit'],
      ['get', '/api/v1/admin/usage'],
      ['get', '/api/v1/admin/audit'],
      ['get', '/api/v1/admin/api-keys'],
      ['get', '/api/v1/admin/invocations'],
      ['get', '/api/v1/ledger'],
      ['get', '/api/v1/webhooks'],
      ['post', '/api/v1/webhooks', { url: 'https://hooks.example/x' }],
    ];
    for (const [method, path, body] of routes) {
      const req = app.http()[method](path).set(as);
      const res = await (body ? req.send(body) : req);
      expect([method, path, res.status, res.body]).toEqual([method, path, 403, FORBIDDEN]);
    }
    // Not even a run.
    const child = await app.http().post(RUNS).set(as).send({ budget: 1 }).expect(403);
    expect(child.body).toEqual({ detail: 'A run cannot create runs.' });
    // It sees no run, not even its own, and cannot end or change it.
    expect((await app.http().get(RUNS).set(as).expect(200)).body).toEqual({
      runs: [],
      next_cursor: null,
    });
    await app.http().get(`${RUNS}/${run.id}`).set(as).expect(404);
    await app.http().patch(`${RUNS}/${run.id}`).set(as).send({ budget: 1000 }).expect(404);
    await app.http().delete(`${RUNS}/${run.id}`).set(as).expect(404);
    // Nothing was made or changed: one key of the parent's, one run, still active.
    const keys = await app.http().get(`/api/v1/auth/api-keys/${parent.id}`).set(admin());
    expect(keys.body).toMatchObject({ status: 'active', daily_limit: null });
    const listed = await app.http().get(`${RUNS}?parent=${parent.id}`).set(admin());
    expect(listed.body.runs).toHaveLength(1);
    expect(listed.body.runs[0]).toMatchObject({ status: 'active', budget: 10 });
    await greet(run.token).expect(200);
  });

  it("refuses a tool outside the run's scopes (403) while its parent may call it", async () => {
    const parent = await key({ scope_template: 'standard' });
    const run = await newRun(parent.key, { budget: 5, scopes: ['services:execute:greet'] });
    const res = await app
      .http()
      .post('/api/v1/services/config_show')
      .set(bearer(run.token))
      .send({})
      .expect(403);
    expect(res.body).toEqual(FORBIDDEN);
    await app
      .http()
      .post('/api/v1/services/config_show')
      .set(bearer(parent.key))
      .send({})
      .expect(200);
    await greet(run.token).expect(200);
    expect(await runOf(run.id)).toMatchObject({ spent: 1, spent_by_tool: { greet: 1 } });
  });

  it("refuses in order: the parent's month, then its day, then the run's budget", async () => {
    const exhaust = async (limits: Record<string, unknown>) => {
      const parent = await key(limits);
      const run = await newRun(parent.key, { budget: 1 });
      await greet(run.token).expect(200);
      const res = await greet(run.token).expect(402);
      return { res, parent, run };
    };
    // All three spent: the month speaks.
    const month = await exhaust({ plan: 'pro', monthly_limit: 1, daily_limit: 1 });
    expect(month.res.body.detail).toMatch(
      /^Monthly request limit exceeded \(1\/1\)\. Resets in \d+d \d+h\.$/,
    );
    expect(month.res.headers['retry-after']).toBeDefined();
    // The day and the run spent: the day speaks.
    const day = await exhaust({ plan: 'pro', monthly_limit: 100, daily_limit: 1 });
    expect(day.res.body.detail).toMatch(
      /^Daily request limit exceeded \(1\/1\)\. Resets in \d+h \d+m\.$/,
    );
    expect(day.res.headers['retry-after']).toBeDefined();
    // The run alone: its own text, no Retry-After.
    const run = await exhaust({ plan: 'pro', monthly_limit: 100, daily_limit: 100 });
    expect(run.res.body).toEqual({ detail: 'Run budget exhausted (1/1).' });
    expect(run.res.headers['retry-after']).toBeUndefined();
    expect(run.res.headers['x-run-budget-remaining']).toBe('0');

    // A daily limit smaller than the budget: the day's text when the day runs out first.
    const parent = await key({ daily_limit: 2 });
    const big = await newRun(parent.key, { budget: 5 });
    await greet(big.token).expect(200);
    await greet(big.token).expect(200);
    const refused = await greet(big.token).expect(402);
    expect(refused.body.detail).toMatch(/^Daily request limit exceeded \(2\/2\)\./);
    // Refusals are counted against neither.
    expect(await runOf(big.id)).toMatchObject({ spent: 2, remaining: 3 });
    expect(await usedBy(parent.id)).toBe(2);
  });

  it("counts against its parent's rate limit: one bucket for the parent and its runs", async () => {
    // The clock stands: a rate of 3 a second is 3 requests in all, the run's creation among them
    // (as every keyed route's).
    const parent = await key({ rate_limit: 3 });
    const run = await newRun(parent.key, { budget: 10 });
    await greet(parent.key).expect(200);
    await greet(run.token).expect(200);
    const limited = await greet(run.token).expect(429);
    expect(limited.body).toEqual({
      detail: 'Rate limit exceeded: 3 requests per second. Retry after 1 second.',
    });
    expect(limited.headers['retry-after']).toBe('1');
    await greet(parent.key).expect(429);
    expect(await runOf(run.id)).toMatchObject({ spent: 1, remaining: 9 });
    expect(await usedBy(parent.id)).toBe(2);
  });

  it('refuses whole a call that costs more than the run has left', async () => {
    const parent = await key({ plan: 'pro' });
    const run = await newRun(parent.key, { budget: 9 });
    const call = (tool: string) =>
      app.http().post(`/api/v1/services/${tool}`).set(bearer(run.token)).send({});
    const seven = await call('seven').expect(200);
    expect([seven.headers['x-quota-cost'], seven.headers['x-run-budget-remaining']]).toEqual([
      '7',
      '2',
    ]);
    // 3 credits, 2 left: refused, nothing counted against the run or its parent.
    expect((await call('three').expect(402)).body).toEqual({
      detail: 'Run budget exhausted (7/9).',
    });
    expect(await runOf(run.id)).toMatchObject({ spent: 7, remaining: 2 });
    expect(await usedBy(parent.id)).toBe(7);
    // What does fit still goes.
    expect((await greet(run.token).expect(200)).headers['x-run-budget-remaining']).toBe('1');
    expect(await runOf(run.id)).toMatchObject({ spent: 8, spent_by_tool: { seven: 7, greet: 1 } });
  });

  it('says what the run has left on every counted answer, and lets a browser read it', async () => {
    const parent = await key();
    const run = await newRun(parent.key, { budget: 3 });
    const first = await greet(run.token).set('Origin', ORIGIN).expect(200);
    expect(first.headers['x-run-budget-remaining']).toBe('2');
    expect(first.headers['access-control-allow-origin']).toBe(ORIGIN);
    const exposed = String(first.headers['access-control-expose-headers'])
      .split(',')
      .map((h) => h.trim().toLowerCase());
    expect(exposed).toContain('x-run-budget-remaining');
    // Its quota headers are its parent's.
    expect(first.headers['x-quota-used']).toBe('1');
    await greet(parent.key).expect(200);
    const second = await greet(run.token).expect(200);
    expect([second.headers['x-run-budget-remaining'], second.headers['x-quota-used']]).toEqual([
      '1',
      '3',
    ]);
    // The parent's own calls carry none.
    expect((await greet(parent.key).expect(200)).headers['x-run-budget-remaining']).toBeUndefined();
    // A 400 of the tool's input counts (docs/keys-and-limits.md, credits): it says so too.
    const invalid = await app
      .http()
      .post('/api/v1/services/greet')
      .set(bearer(run.token))
      .send({ name: '' })
      .expect(400);
    expect(invalid.headers['x-run-budget-remaining']).toBe('0');
    expect(await runOf(run.id)).toMatchObject({ spent: 3, remaining: 0 });
    const refused = await greet(run.token).set('Origin', ORIGIN).expect(402);
    expect(refused.headers['x-run-budget-remaining']).toBe('0');
    expect(String(refused.headers['access-control-expose-headers'])).toContain(
      'X-Run-Budget-Remaining',
    );
  });

  it("keeps a run's Idempotency-Keys its own: two calls for one key, each charged; a replay free", async () => {
    const parent = await key();
    const run = await newRun(parent.key, { budget: 5 });
    const byParent = await greet(parent.key, 'parent').set('Idempotency-Key', 'same').expect(200);
    expect(byParent.body.message).toBe('Hello, parent!');
    // The run's call with that key runs anew (another body: no 422 mismatch), and is charged.
    const byRun = await greet(run.token, 'agent').set('Idempotency-Key', 'same').expect(200);
    expect(byRun.body.message).toBe('Hello, agent!');
    expect(byRun.headers['idempotent-replayed']).toBeUndefined();
    expect(byRun.headers['x-run-budget-remaining']).toBe('4');
    expect(await usedBy(parent.id)).toBe(2);
    // Each replays its own answer, and a replay costs nothing.
    const replay = await greet(run.token, 'agent').set('Idempotency-Key', 'same').expect(200);
    expect([replay.headers['idempotent-replayed'], replay.body]).toEqual(['true', byRun.body]);
    const parentReplay = await greet(parent.key, 'parent').set('Idempotency-Key', 'same');
    expect([parentReplay.headers['idempotent-replayed'], parentReplay.body]).toEqual([
      'true',
      byParent.body,
    ]);
    expect(await usedBy(parent.id)).toBe(2);
    expect(await runOf(run.id)).toMatchObject({ spent: 1, remaining: 4 });
    // Another run of the same parent does not see the first run's answer either.
    const other = await newRun(parent.key, { budget: 5 });
    const byOther = await greet(other.token, 'other').set('Idempotency-Key', 'same').expect(200);
    expect([byOther.headers['idempotent-replayed'], byOther.body.message]).toEqual([
      undefined,
      'Hello, other!',
    ]);
    expect(await usedBy(parent.id)).toBe(3);
    // A replay still answers once the budget is spent: it costs nothing.
    const small = await newRun(parent.key, { budget: 1 });
    await greet(small.token, 'once').set('Idempotency-Key', 'last').expect(200);
    const last = await greet(small.token, 'once').set('Idempotency-Key', 'last').expect(200);
    expect(last.headers['idempotent-replayed']).toBe('true');
    await greet(small.token, 'again').expect(402);
    expect(await usedBy(parent.id)).toBe(4);
  });

  it('lists runs newest first, by parent and status, in pages; each parent its own', async () => {
    const a = await key();
    const b = await key();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      tick();
      made.push((await newRun(a.key, { budget: 1, label: `a${i}` })).id);
    }
    tick();
    const ofB = await newRun(b.key, { budget: 1 });
    await app.http().delete(`${RUNS}/${made[1]}`).set(bearer(a.key)).expect(200);
    const newestFirst = [...made].reverse();
    const list = async (query: string, credential = a.key) => {
      const res = await app.http().get(`${RUNS}${query}`).set(bearer(credential)).expect(200);
      return res.body as { runs: { id: string; status: string }[]; next_cursor: string | null };
    };
    const idsOf = (page: { runs: { id: string }[] }) => page.runs.map((r) => r.id);

    expect(idsOf(await list(''))).toEqual(newestFirst);
    expect(idsOf(await list('?status=active'))).toEqual(newestFirst.filter((id) => id !== made[1]));
    expect(await list('?status=ended')).toMatchObject({
      runs: [{ id: made[1], status: 'ended' }],
      next_cursor: null,
    });
    expect(idsOf(await list('?status=expired'))).toEqual([]);
    // Pages of two: the cursor is the last id of a page, null on the last.
    const first = await list('?limit=2');
    expect([idsOf(first), first.next_cursor]).toEqual([newestFirst.slice(0, 2), made[3]]);
    const second = await list(`?limit=2&before=${first.next_cursor}`);
    expect([idsOf(second), second.next_cursor]).toEqual([newestFirst.slice(2, 4), made[1]]);
    const last = await list(`?limit=2&before=${second.next_cursor}`);
    expect([idsOf(last), last.next_cursor]).toEqual([[made[0]], null]);
    // A parent lists its own only, even when it names another; admin:read every one, by parent.
    expect(idsOf(await list('', b.key))).toEqual([ofB.id]);
    expect(idsOf(await list(`?parent=${a.id}`, b.key))).toEqual([ofB.id]);
    expect(idsOf(await list(`?parent=${a.id}`, app.adminKey))).toEqual(newestFirst);
    expect(idsOf(await list(`?parent=${b.id}`, app.adminKey))).toEqual([ofB.id]);
    const everyOne = idsOf(await list('?limit=100', app.adminKey));
    expect(everyOne.slice(0, 6)).toEqual([ofB.id, ...newestFirst]);
    // Nor shows, changes or ends another's run.
    await app.http().get(`${RUNS}/${ofB.id}`).set(bearer(a.key)).expect(404);
    await app.http().patch(`${RUNS}/${ofB.id}`).set(bearer(a.key)).send({ budget: 9 }).expect(404);
    await app.http().delete(`${RUNS}/${ofB.id}`).set(bearer(a.key)).expect(404);
    await app
      .http()
      .get(`${RUNS}/run_${'0'.repeat(32)}`)
      .set(bearer(a.key))
      .expect(404);
    expect(await runOf(ofB.id)).toMatchObject({ status: 'active', budget: 1 });
    // Bad queries: 400 at the parameter.
    for (const [query, name] of [
      ['?status=done', 'status'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?before=run_xyz', 'before'],
      ['?parent=someone', 'parent'],
    ]) {
      const res = await app.http().get(`${RUNS}${query}`).set(bearer(a.key)).expect(400);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['query', name] })]);
    }
  });

  it('changes a budget and a label (its parent, admin:write); a raised budget lets calls go on', async () => {
    const parent = await key();
    const run = await newRun(parent.key, { budget: 1, label: 'first' });
    await greet(run.token).expect(200);
    await greet(run.token).expect(402);
    const changed = await app
      .http()
      .patch(`${RUNS}/${run.id}`)
      .set(bearer(parent.key))
      .send({ budget: 3, label: 'second' })
      .expect(200);
    expect(changed.body).toMatchObject({
      id: run.id,
      budget: 3,
      spent: 1,
      remaining: 2,
      label: 'second',
      spent_by_tool: { greet: 1 },
    });
    expect((await greet(run.token).expect(200)).headers['x-run-budget-remaining']).toBe('1');
    // An admin changes it too; {} changes nothing.
    await app
      .http()
      .patch(`${RUNS}/${run.id}`)
      .set(admin())
      .send({ label: 'by admin' })
      .expect(200);
    const same = await app.http().patch(`${RUNS}/${run.id}`).set(bearer(parent.key)).send({});
    expect(same.body).toMatchObject({ budget: 3, label: 'by admin', spent: 2 });
    // The rules of creation; nothing else may change.
    for (const body of [
      { budget: 0 },
      { budget: 1_000_000_001 },
      { label: '' },
      { scopes: [] },
      { ttl_seconds: 59 },
      { ttl_seconds: 604_801 },
    ]) {
      await app.http().patch(`${RUNS}/${run.id}`).set(bearer(parent.key)).send(body).expect(400);
    }
    // Lowered to what it spent: nothing left.
    await app
      .http()
      .patch(`${RUNS}/${run.id}`)
      .set(bearer(parent.key))
      .send({ budget: 2 })
      .expect(200);
    expect((await greet(run.token).expect(402)).body).toEqual({
      detail: 'Run budget exhausted (2/2).',
    });
    expect(await runOf(run.id)).toMatchObject({
      budget: 2,
      spent: 2,
      remaining: 0,
      label: 'by admin',
    });
  });

  it('audits run.created, run.updated and run.deleted, by whom and on which run', async () => {
    const parent = await key();
    const run = await newRun(parent.key, { budget: 4, scopes: ['services:execute:greet'] });
    await app
      .http()
      .patch(`${RUNS}/${run.id}`)
      .set(bearer(parent.key))
      .send({ budget: 6, label: 'x' });
    await app.http().delete(`${RUNS}/${run.id}`).set(bearer(parent.key)).expect(200);
    // Ending it again changes nothing and audits nothing.
    const again = await app.http().delete(`${RUNS}/${run.id}`).set(bearer(parent.key)).expect(200);
    expect(again.body).toMatchObject({ status: 'ended', ended_reason: 'deleted' });

    const audit = await app.http().get('/api/v1/audit?limit=500').set(admin()).expect(200);
    const mine = (audit.body.entries as { target: string }[]).filter((e) => e.target === run.id);
    expect(mine).toEqual([
      expect.objectContaining({ action: 'run.deleted', actor_key_id: parent.id, details: {} }),
      expect.objectContaining({
        action: 'run.updated',
        actor_key_id: parent.id,
        details: { budget: 6, label: 'x' },
      }),
      expect.objectContaining({
        action: 'run.created',
        actor_key_id: parent.id,
        details: { budget: 4, scopes: ['services:execute:greet'], expires_at: run.expires_at },
      }),
    ]);
    for (const action of ['run.created', 'run.updated', 'run.deleted']) {
      const found = await app
        .http()
        .get(`/api/v1/admin/audit?action=${action}&actor=${parent.id}`)
        .set(admin())
        .expect(200);
      expect(found.body.entries).toEqual([expect.objectContaining({ action, target: run.id })]);
    }
  });

  it("cancels and refunds a run's queued long-running call when it ends; the running one stays charged", async () => {
    const parent = await key({ plan: 'pro' });
    const run = await newRun(parent.key, { budget: 10 });
    narrowGate.close();
    const inBackground = (label: string) =>
      app
        .http()
        .post('/api/v1/services/narrow')
        .set(bearer(run.token))
        .set('Prefer', 'respond-async')
        .send({ label })
        .expect(202);
    const running = await inBackground('running');
    await until(
      () => probe.narrowRuns,
      (n) => n === 1,
    );
    const queued = await inBackground('queued');
    expect([running.body.status, queued.body.status]).toEqual(['running', 'queued']);
    // A 202 is a counted answer too.
    expect(queued.headers['x-run-budget-remaining']).toBe('8');
    expect(await runOf(run.id)).toMatchObject({ spent: 2, remaining: 8 });
    expect(await usedBy(parent.id)).toBe(2);

    await app.http().delete(`${RUNS}/${run.id}`).set(bearer(parent.key)).expect(200);
    const view = (id: string) =>
      app.http().get(`/api/v1/invocations/${id}`).set(bearer(parent.key)).expect(200);
    const cancelled = await until(
      async () => (await view(queued.body.id as string)).body as { status: string },
      (v) => v.status !== 'queued',
    );
    expect(cancelled.status).toBe('cancelled');
    // Refunded to the run and to its parent; the running call finishes, charged.
    expect(await runOf(run.id)).toMatchObject({ spent: 1, spent_by_tool: { narrow: 1 } });
    expect(await usedBy(parent.id)).toBe(1);
    narrowGate.release();
    const finished = await until(
      async () => (await view(running.body.id as string)).body as { status: string },
      (v) => v.status !== 'running',
    );
    expect(finished.status).toBe('succeeded');
    expect(probe.narrowRuns).toBe(1);
    expect(await runOf(run.id)).toMatchObject({ spent: 1, status: 'ended' });
    expect(await usedBy(parent.id)).toBe(1);
    // The ledger: both charges and the refund, naming their calls (in any order: the clock stood).
    const ledger = await app.http().get(`/api/v1/ledger?run=${run.id}`).set(admin()).expect(200);
    const entries = ledger.body.entries as {
      kind: string;
      credits: number;
      invocation_id: string;
    }[];
    expect(entries.map((e) => [e.kind, e.credits, e.invocation_id]).sort()).toEqual(
      [
        ['charge', 1, running.body.id],
        ['charge', 1, queued.body.id],
        ['refund', -1, queued.body.id],
      ].sort(),
    );
  });
});

/**
 * A principal as a run's parent: the service trusts a test issuer (TokenIssuer); the principal's
 * access token makes the run, the run's calls are the principal's, and the run ends when the
 * principal is disabled or deleted.
 */
describe('runs of an OAuth principal (e2e)', () => {
  let issuer: TokenIssuer;
  let app: TestApp;
  let base: string;

  beforeAll(async () => {
    issuer = await TokenIssuer.start();
    base = `http://127.0.0.1:${await freePort()}`;
    app = await startApp({ env: { PUBLIC_URL: base, OAUTH_ISSUERS: issuer.issuer } });
  });
  afterAll(async () => {
    await app?.close();
    await issuer?.stop();
  });

  const token = (sub: string) => issuer.sign({ sub, aud: base, scope: 'services:execute' });
  const greet = (credential: string) =>
    app.http().post('/api/v1/services/greet').set(bearer(credential)).send({ name: 'Ada' });
  const admin = () => bearer(app.adminKey);

  async function principalRun(sub: string) {
    const access = await token(sub);
    const created = await app.http().post(RUNS).set(bearer(access)).send({ budget: 2 }).expect(201);
    const run = created.body as { id: string; token: string; parent: { kind: string; id: string } };
    expect(run.parent.kind).toBe('principal');
    expect(run.parent.id).toMatch(/^prn_[0-9a-f]{32}$/);
    return { access, run };
  }

  it("makes a run of a principal whose calls are the principal's, ended when it is disabled", async () => {
    const { access, run } = await principalRun('ada');
    await greet(run.token).expect(200);
    await greet(run.token).expect(200);
    expect((await greet(run.token).expect(402)).body).toEqual({
      detail: 'Run budget exhausted (2/2).',
    });
    const usage = await app
      .http()
      .get(`/api/v1/auth/principals/${run.parent.id}/usage`)
      .set(admin())
      .expect(200);
    expect(usage.body.used).toBe(2);
    const listed = await app.http().get(RUNS).set(bearer(access)).expect(200);
    expect(listed.body.runs.map((r: { id: string }) => r.id)).toEqual([run.id]);

    await app
      .http()
      .patch(`/api/v1/auth/principals/${run.parent.id}`)
      .set(admin())
      .send({ enabled: false })
      .expect(200);
    expect((await greet(run.token).expect(401)).body).toEqual({ detail: 'Run has ended.' });
    const shown = await app.http().get(`${RUNS}/${run.id}`).set(admin()).expect(200);
    expect(shown.body).toMatchObject({ status: 'ended', ended_reason: 'parent_disabled' });
  });

  it("ends a principal's run when the principal is deleted", async () => {
    const { run } = await principalRun('bob');
    await greet(run.token).expect(200);
    await app.http().delete(`/api/v1/auth/principals/${run.parent.id}`).set(admin()).expect(200);
    expect((await greet(run.token).expect(401)).body).toEqual({ detail: 'Run has ended.' });
    const shown = await app.http().get(`${RUNS}/${run.id}`).set(admin()).expect(200);
    expect(shown.body).toMatchObject({ status: 'ended', ended_reason: 'parent_revoked' });
  });
});
