import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ThrottlerStorage } from '@nestjs/throttler';
import { Clock } from '../../src/kernel/common/clock';
import type { BudgetStorage, RateBudget } from '../../src/limits/rate.store';
import { bearer, startApp, tempDataDir, TestApp, TestAppOptions } from '../support/app';
import { FakeClock } from '../support/fake-clock';
import { CLIENT_KINDS, ClientKind, connectHttp } from '../support/mcp-clients';
import { TokenIssuer } from '../support/oauth/token-issuer';
import { freePort, usingSharedRedis } from '../support/redis';

/**
 * The POSTs of an ordinary session, one message each: 2026-07-28's `server/discover`, or 2025's
 * `initialize` and its notification; then `tools/list` and three `tools/call`.
 */
const SESSION_POSTS: Record<ClientKind, number> = { modern: 5, legacy: 6, v1: 6 };

const REFUSED = 'Rate limit exceeded: 5 requests per second. Retry after 1 second.';
const INSUFFICIENT = { detail: 'Insufficient permissions for this operation.' };

/**
 * Every app here runs on a clock the test holds still or moves by hand: what a bucket serves then
 * depends only on the calls and the time the test lets pass, never on how fast this machine is.
 */
function clocked(clock: FakeClock, options: TestAppOptions = {}): TestAppOptions {
  return { ...options, configure: (b) => b.overrideProvider(Clock).useValue(clock) };
}

const mcpPost = (t: TestApp, credential: string, body: unknown) =>
  t
    .http()
    .post('/mcp')
    .set(bearer(credential))
    .set('Accept', 'application/json, text/event-stream')
    .send(body as object);

describe("an agent's session on the default plan (e2e)", () => {
  // Held still: the whole session happens in one instant, the most a bucket must hold at once.
  const clock = new FakeClock(new Date());
  let issuer: TokenIssuer;
  let t: TestApp;
  let url: URL;

  beforeAll(async () => {
    issuer = await TokenIssuer.start();
    // A token's audience is the resource's URL, which PUBLIC_URL names: the app listens there.
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    t = await startApp(clocked(clock, { env: { PUBLIC_URL: base, OAUTH_ISSUERS: issuer.issuer } }));
    await t.app.listen(port, '127.0.0.1');
    url = new URL(`${base}/mcp`);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await issuer?.stop();
  });

  /** Connect (handshake or discovery), list the tools, three calls: none may meet a 429. */
  async function ordinarySession(kind: ClientKind, credential: string): Promise<void> {
    const client = await connectHttp(kind, url, credential);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('greet');
      for (const name of ['Ada', 'Grace', 'Edsger']) {
        const result = await client.callTool({ name: 'greet', arguments: { name } });
        expect(result.isError).toBeFalsy();
      }
    } finally {
      await client.close();
    }
  }

  /** What the caller's bucket holds after its session (and this request): a call a POST. */
  async function remainingAfter(credential: string): Promise<number> {
    const me = await t.http().get('/api/v1/auth/me').set(bearer(credential));
    expect(me.status).toBe(200);
    expect(me.headers['x-ratelimit-limit']).toBe('15');
    expect(me.headers['x-ratelimit-policy']).toBe('5;w=1;burst=15');
    return Number(me.headers['x-ratelimit-remaining']);
  }

  it.each(CLIENT_KINDS)('the %s client on a new free key', async (kind) => {
    const key = await t.createKey({ scope_template: 'standard' });
    await ordinarySession(kind, key);
    expect(await remainingAfter(key)).toBe(15 - SESSION_POSTS[kind] - 1);
  });

  it.each(CLIENT_KINDS)('the %s client as a new OAuth principal', async (kind) => {
    const sign = (audience: string) =>
      issuer.sign({ sub: `agent-${kind}`, aud: audience, scope: 'services:read services:execute' });
    await ordinarySession(kind, await sign(url.href));
    // The same subject on the REST resource is the same principal, with the same bucket.
    const rest = await sign(url.origin);
    const me = await t.http().get('/api/v1/auth/me').set(bearer(rest));
    expect(me.body).toMatchObject({ auth_method: 'oauth', plan: 'free' });
    expect(await remainingAfter(rest)).toBe(15 - SESSION_POSTS[kind] - 2);
  });
});

describe('the token bucket of a key (e2e)', () => {
  const clock = new FakeClock(new Date('2031-05-06T07:08:09.000Z'));
  let a: TestApp;
  /** On Redis, a second instance of the same deployment; on SQLite the same one. */
  let b: TestApp;

  beforeAll(async () => {
    a = await startApp(clocked(clock));
    b = usingSharedRedis() ? await startApp(clocked(clock, { dataDir: a.dataDir })) : a;
  });
  afterAll(async () => {
    if (b !== a) await b.close();
    await a.close();
  });

  const tick = (ms: number) => clock.set(new Date(clock.now().getTime() + ms));
  /** Call i on one instance, call i + 1 on the other. */
  const greet = (key: string, i = 0) =>
    (i % 2 ? b : a).http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'B' });
  const statuses = async (key: string, calls: number) =>
    (await Promise.all(Array.from({ length: calls }, (_, i) => greet(key, i)))).map(
      (res) => res.status,
    );
  const count = (list: number[], status: number) => list.filter((s) => s === status).length;

  it('serves a free key 15 calls at once, X-RateLimit-Remaining from 14 to 0, then 429', async () => {
    const key = await a.createKey();
    for (let i = 1; i <= 15; i++) {
      const res = await greet(key, i);
      expect(res.status).toBe(200);
      // The bucket's size: what it holds when full, never less than what remains.
      expect(res.headers['x-ratelimit-limit']).toBe('15');
      expect(res.headers['x-ratelimit-policy']).toBe('5;w=1;burst=15');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(15 - i));
      // Until the bucket is full again: 200 ms a call taken.
      expect(res.headers['x-ratelimit-reset']).toBe(String(Math.ceil((i * 200) / 1000)));
    }
    const refused = await greet(key, 16);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ detail: REFUSED });
    expect(refused.headers).toMatchObject({
      'retry-after': '1',
      'x-ratelimit-limit': '15',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1',
      'x-ratelimit-policy': '5;w=1;burst=15',
    });
  });

  it('refills at 5 a second: one call each 200 ms, 5 a second, never more than 15', async () => {
    const key = await a.createKey();
    expect(count(await statuses(key, 15), 200)).toBe(15);
    tick(199);
    expect((await greet(key)).status).toBe(429);
    tick(1);
    const back = await greet(key, 1);
    expect([back.status, back.headers['x-ratelimit-remaining']]).toEqual([200, '0']);
    expect((await greet(key)).status).toBe(429);
    tick(1000);
    expect(count(await statuses(key, 8), 200)).toBe(5);
    // Three quiet seconds fill it; ten quiet minutes hold it full, no more.
    tick(3000);
    expect(count(await statuses(key, 20), 200)).toBe(15);
    tick(600_000);
    expect(count(await statuses(key, 20), 200)).toBe(15);
  });

  it('counts exactly across instances: 40 calls at once, 15 served, the rest 429', async () => {
    const key = await a.createKey();
    const results = await statuses(key, 40);
    expect([count(results, 200), count(results, 429)]).toEqual([15, 25]);
  });

  it("keeps today's figures for a key with its own rate_limit: a burst of its rate", async () => {
    const key = await a.createKey({ rate_limit: 5 });
    for (let i = 1; i <= 5; i++) {
      const res = await greet(key, i);
      expect([res.status, res.headers['x-ratelimit-remaining']]).toEqual([200, String(5 - i)]);
    }
    const refused = await greet(key, 6);
    expect([refused.status, refused.body]).toEqual([429, { detail: REFUSED }]);
    tick(1000);
    expect(count(await statuses(key, 10), 200)).toBe(5);
  });

  it('takes an MCP POST all or nothing: 16 messages are refused whole, 15 fit', async () => {
    const key = await a.createKey({ scope_template: 'standard' });
    const list = (n: number) =>
      Array.from({ length: n }, (_, id) => ({ jsonrpc: '2.0', id, method: 'tools/list' }));
    const tooMany = await mcpPost(b, key, list(16));
    expect(tooMany.status).toBe(429);
    expect(tooMany.body).toEqual({ detail: REFUSED });
    // Nothing was taken: the bucket still holds its 15, which one POST may spend.
    expect(tooMany.headers['x-ratelimit-remaining']).toBe('15');
    const fits = await mcpPost(a, key, list(15));
    expect(fits.status).toBe(200);
    expect(fits.body).toHaveLength(15);
    expect(fits.headers['x-ratelimit-remaining']).toBe('0');
    expect((await mcpPost(b, key, list(1))).status).toBe(429);
  });

  it('refuses 100 notifications from a free key: whole as a batch, past 15 one by one', async () => {
    const key = await a.createKey({ scope_template: 'standard' });
    const note = { jsonrpc: '2.0', method: 'notifications/initialized' };
    const batch = await mcpPost(
      a,
      key,
      Array.from({ length: 100 }, () => note),
    );
    expect(batch.status).toBe(429);
    const oneByOne: number[] = [];
    for (let i = 0; i < 100; i++) oneByOne.push((await mcpPost(i % 2 ? b : a, key, note)).status);
    expect(oneByOne).toEqual([...Array<number>(15).fill(202), ...Array<number>(85).fill(429)]);
  });
});

describe('burst in the plans and under no-escalation (e2e)', () => {
  const clock = new FakeClock(new Date('2031-05-06T07:08:09.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    const dataDir = tempDataDir();
    const config = join(dataDir, 'config.yaml');
    writeFileSync(
      config,
      [
        'limits:',
        '  plans:',
        // As free but for the burst: none (its rate, 5), or 50.
        '    calm: { daily_limit: 100, rate_limit: 5 }',
        '    surge: { daily_limit: 100, rate_limit: 5, burst: 50 }',
      ].join('\n'),
    );
    t = await startApp(
      clocked(clock, { dataDir, env: { CONFIG_FILE: config, PLAN_PRO_BURST: '60' } }),
    );
  });
  afterAll(() => t.close());

  const create = (caller: string, body: object) =>
    t
      .http()
      .post('/api/v1/auth/api-keys')
      .set(bearer(caller))
      .send({ name: 'granted', ...body });
  const burstOf = async (key: string) => {
    const greet = () =>
      t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'P' });
    let served = 0;
    while ((await greet()).status === 200 && served < 200) served++;
    return served;
  };

  it("gives a plan its burst: the file's, the environment's, or its rate", async () => {
    expect(await burstOf(await t.createKey({ plan: 'surge' }))).toBe(50);
    expect(await burstOf(await t.createKey({ plan: 'calm' }))).toBe(5);
    expect(await burstOf(await t.createKey({ plan: 'pro' }))).toBe(60);
  });

  it("refuses to grant a burst beyond the caller's own, and allows one within it", async () => {
    // A free admin key: rate 5, burst 15.
    const free = await t.createKey({ scope_template: 'admin' });
    expect((await create(free, { plan: 'surge' })).status).toBe(403);
    expect((await create(free, { plan: 'surge' })).body).toEqual(INSUFFICIENT);
    for (const body of [{ plan: 'calm' }, { plan: 'free' }, { rate_limit: 5 }]) {
      expect((await create(free, body)).status).toBe(201);
    }
    // A key with a rate of its own has a burst of that rate: a plain free key holds more.
    const own = await t.createKey({ scope_template: 'admin', rate_limit: 5 });
    const { body: denied, status } = await create(own, { plan: 'free' });
    expect([status, denied]).toEqual([403, INSUFFICIENT]);
    expect((await create(own, { plan: 'calm' })).status).toBe(201);
    const made = await create(own, { rate_limit: 5 });
    expect(made.status).toBe(201);
    // Back to the plan's rate (and its burst of 15) is beyond it too; nothing changes.
    const patch = await t
      .http()
      .patch(`/api/v1/auth/api-keys/${made.body.id as string}`)
      .set(bearer(own))
      .send({ rate_limit: null });
    expect([patch.status, patch.body]).toEqual([403, INSUFFICIENT]);
    const view = await t
      .http()
      .get(`/api/v1/auth/api-keys/${made.body.id as string}`)
      .set(bearer(t.adminKey));
    expect(view.body).toMatchObject({ plan: 'free', rate_limit: 5 });
  });
});

/** The same arithmetic in both stores: in memory (SQLite runs) and in the Redis script. */
describe(`the bucket in the ${usingSharedRedis() ? 'Redis' : 'in-memory'} rate storage (e2e)`, () => {
  let t: TestApp;
  let storage: BudgetStorage;
  let n = 0;

  beforeAll(async () => {
    t = await startApp();
    storage = t.app.get<BudgetStorage>(ThrottlerStorage);
  });
  afterAll(() => t.close());

  /** A new bucket (its own storage key) and a way to draw from it at a given time. */
  function bucket(rate: number, burst: number) {
    const budget: RateBudget = {
      throttler: 'default',
      storageKey: `{key_test${n++}}:rate`,
      windowMs: 1000,
      rate,
      burst,
    };
    return (now: number, calls = 1) => storage.draw(budget, calls, now);
  }
  const T = 1_900_000_000_000;

  it('serves the burst, then one call per 1/rate of the window, exactly', async () => {
    const draw = bucket(3, 3);
    expect(await draw(T, 3)).toEqual({
      taken: true,
      remaining: 0,
      untilOneMs: 334,
      untilFullMs: 1000,
    });
    expect(await draw(T + 333)).toMatchObject({ taken: false, untilOneMs: 1 });
    expect(await draw(T + 334)).toMatchObject({ taken: true, remaining: 0 });
    expect((await draw(T + 666)).taken).toBe(false);
    expect((await draw(T + 667)).taken).toBe(true);
    expect((await draw(T + 1000)).taken).toBe(true);
    expect((await draw(T + 1000)).taken).toBe(false);
  });

  it('takes several calls all or none, and holds no more than its burst', async () => {
    const draw = bucket(5, 15);
    expect(await draw(T, 16)).toEqual({
      taken: false,
      remaining: 15,
      untilOneMs: 0,
      untilFullMs: 0,
    });
    expect(await draw(T, 10)).toMatchObject({ taken: true, remaining: 5, untilFullMs: 2000 });
    expect(await draw(T + 3_600_000, 16)).toMatchObject({ taken: false, remaining: 15 });
  });

  it("keeps a bucket while its callers' clock stands still, however long Redis's runs", async () => {
    const draw = bucket(5, 5);
    expect(await draw(T)).toMatchObject({ taken: true, remaining: 4, untilFullMs: 200 });
    // Longer than the bucket takes to refill by Redis's clock.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await draw(T, 5)).toMatchObject({ taken: false, remaining: 4 });
  });

  it('counts from a clock more than a window behind, and waits for one a little behind', async () => {
    const draw = bucket(5, 5);
    expect((await draw(T, 5)).taken).toBe(true);
    expect((await draw(T - 500)).taken).toBe(false);
    expect((await draw(T + 200)).taken).toBe(true);
    expect((await draw(T - 3_600_000)).taken).toBe(false);
    expect((await draw(T - 3_600_000 + 200)).taken).toBe(true);
  });
});
