import type { Response } from 'supertest';
import { Clock } from '../../src/kernel/common/clock';
import { bearer, startApp, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';

const ORIGIN = 'https://app.example.com';

/** The rate headers of an answer, as a client reads them. */
function rateOf(res: Response) {
  const h = res.headers;
  return {
    limit: Number(h['x-ratelimit-limit']),
    remaining: Number(h['x-ratelimit-remaining']),
    policy: h['x-ratelimit-policy'] as string | undefined,
  };
}

/**
 * The rate headers agree with one another on every answer that carries them (docs/keys-and-limits.md,
 * "Rate limit (429)"): `X-RateLimit-Limit` is the bucket's size, so `X-RateLimit-Remaining` never
 * exceeds it; `X-RateLimit-Policy: <rate>;w=<window s>;burst=<burst>` says how it refills; a browser
 * may read them all (CORS). Over REST (a tool call, a keyed route), MCP (the fast path's call and
 * any other POST), their 429s, and the 429 of failed authentications. The clock is held still: a
 * bucket then holds exactly what the calls left in it.
 */
describe('the rate headers (e2e)', () => {
  const clock = new FakeClock(new Date('2031-05-06T07:08:09.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({
      env: { CORS_ORIGINS: ORIGIN, AUTH_FAILURE_LIMIT: '2' },
      configure: (b) => b.overrideProvider(Clock).useValue(clock),
    });
  });
  afterAll(() => t.close());

  const greet = (key: string) =>
    t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'Ada' });
  const mcp = (key: string, body: object) =>
    t
      .http()
      .post('/mcp')
      .set(bearer(key))
      .set('Accept', 'application/json, text/event-stream')
      .send(body);
  const mcpGreet = (key: string, id: number) =>
    mcp(key, {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'greet', arguments: { name: 'Ada' } },
    });

  it('gives an unlimited key a bucket of 2000, refilled at 1000 a second', async () => {
    const res = await greet(await t.createKey({ plan: 'unlimited' }));
    expect(res.status).toBe(200);
    expect(rateOf(res)).toEqual({ limit: 2000, remaining: 1999, policy: '1000;w=1;burst=2000' });
  });

  it("never shows a free key more remaining than its limit: REST, a keyed route and MCP's two paths", async () => {
    const key = await t.createKey({ scope_template: 'standard' });
    const answers = [
      await greet(key),
      await t.http().get('/api/v1/usage').set(bearer(key)),
      await mcpGreet(key, 1),
      await mcp(key, { jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    ];
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map(rateOf)).toEqual(
      [14, 13, 12, 11].map((remaining) => ({ limit: 15, remaining, policy: '5;w=1;burst=15' })),
    );
  });

  it("states a key's own rate as its burst too", async () => {
    const key = await t.createKey({ scope_template: 'standard', rate_limit: 3 });
    expect(rateOf(await greet(key))).toEqual({ limit: 3, remaining: 2, policy: '3;w=1;burst=3' });
  });

  it('says the same on the 429s of REST and MCP', async () => {
    const key = await t.createKey({ scope_template: 'standard', rate_limit: 2 });
    expect((await greet(key)).status).toBe(200);
    expect((await mcpGreet(key, 1)).status).toBe(200);
    const refused = [await greet(key), await mcpGreet(key, 2)];
    for (const res of refused) {
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBe('1');
      expect(rateOf(res)).toEqual({ limit: 2, remaining: 0, policy: '2;w=1;burst=2' });
    }
  });

  it('states the failed authentications of an address as a window of its own', async () => {
    const bad = () =>
      t
        .http()
        .get('/api/v1/usage')
        .set(bearer(`sk_${'0'.repeat(64)}`));
    expect((await bad()).status).toBe(401);
    expect((await bad()).status).toBe(401);
    const refused = await bad();
    expect(refused.status).toBe(429);
    expect(rateOf(refused)).toEqual({ limit: 2, remaining: 0, policy: '2;w=60;burst=2' });
  });

  it('lets a listed browser origin read them, X-RateLimit-Policy included', async () => {
    const res = await greet(t.adminKey).set('Origin', ORIGIN);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    const exposed = res.headers['access-control-expose-headers'].split(',');
    expect(exposed).toEqual(
      expect.arrayContaining([
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'X-RateLimit-Policy',
      ]),
    );
    expect(res.headers['x-ratelimit-policy']).toBe('1000;w=1;burst=2000');
  });
});
