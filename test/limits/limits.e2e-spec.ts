import { UsageStore } from '../../src/limits/usage.store';
import { Clock } from '../../src/kernel/common/clock';
import { bearer, startApp, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';

const QUOTA_TEXT = /^Daily request limit exceeded \((\d+)\/(\d+)\)\. Resets in (\d+)h (\d+)m\.$/;

function secondsToNextUtcMidnight(now = new Date()): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return (next - now.getTime()) / 1000;
}

describe('daily quota (e2e)', () => {
  // Still: the rate buckets hold exactly what the calls left in them, however slow the machine.
  const clock = new FakeClock(new Date());
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ configure: (b) => b.overrideProvider(Clock).useValue(clock) });
  });
  afterAll(() => t.close());

  const greet = (key: string, body: object = { name: 'Q' }) =>
    t.http().post('/api/v1/services/greet').set(bearer(key)).send(body);
  const usage = async (key: string) =>
    (await t.http().get('/api/v1/usage').set(bearer(key))).body as Record<string, unknown>;

  it('serves daily_limit calls, then answers 402 with the exact text and Retry-After', async () => {
    const key = await t.createKey({ daily_limit: 3, rate_limit: 100 });
    for (let i = 1; i <= 3; i++) {
      const res = await greet(key);
      expect(res.status).toBe(200);
      expect(res.headers['x-quota-limit']).toBe('3');
      expect(res.headers['x-quota-remaining']).toBe(String(3 - i));
      expect(res.headers['x-quota-used']).toBe(String(i));
    }
    const refused = await greet(key);
    expect(refused.status).toBe(402);
    // The refusal kept its rate count, and says where the rate counter stands, as every answer.
    expect(refused.headers['x-ratelimit-limit']).toBe('100');
    expect(refused.headers['x-ratelimit-remaining']).toBe('96');
    const match = QUOTA_TEXT.exec(refused.body.detail as string);
    expect(match).not.toBeNull();
    const [, used, limit, hours, minutes] = match!.map(Number);
    expect([used, limit]).toEqual([3, 3]);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Math.abs(retryAfter - secondsToNextUtcMidnight(clock.now()))).toBeLessThanOrEqual(1);
    expect(hours).toBe(Math.floor(retryAfter / 3600));
    expect(minutes).toBe(Math.floor((retryAfter % 3600) / 60));
    expect(await usage(key)).toMatchObject({ daily_limit: 3, used: 3, remaining: 0 });
  });

  it('counts calls that fail validation, but not 401s and 403s', async () => {
    const key = await t.createKey({ daily_limit: 10, rate_limit: 100 });
    expect((await greet(key, { times: 0 })).status).toBe(400);
    expect((await t.http().post('/api/v1/services/greet').send({ name: 'x' })).status).toBe(401);
    const reader = await t.createKey({ scope_template: 'read_only', daily_limit: 10 });
    expect((await greet(reader)).status).toBe(403);
    expect(await usage(key)).toMatchObject({ used: 1, remaining: 9 });
    expect(await usage(reader)).toMatchObject({ used: 0 });
  });

  it('lets exactly daily_limit of 50 concurrent calls through', async () => {
    const key = await t.createKey({ daily_limit: 20, rate_limit: 1000 });
    const results = await Promise.all(Array.from({ length: 50 }, () => greet(key)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 402)).toHaveLength(30);
    expect(await usage(key)).toMatchObject({
      plan: 'free',
      daily_limit: 20,
      used: 20,
      remaining: 0,
    });
  });

  it('reports usage for unlimited keys without a limit', async () => {
    const key = await t.createKey({ plan: 'unlimited' });
    const res = await greet(key);
    expect(res.headers['x-quota-limit']).toBeUndefined();
    expect(res.headers['x-quota-used']).toBe('1');
    const body = await usage(key);
    expect(body).toEqual({
      plan: 'unlimited',
      daily_limit: null,
      used: 1,
      remaining: null,
      resets_at: expect.stringMatching(/T00:00:00\.000Z$/),
      monthly: null,
      history: [
        {
          date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
          used: 1,
          by_tool: { greet: { calls: 1, credits: 1, failed: 0 } },
        },
      ],
    });
  });

  it('gives a key with no limits of its own its plan limits', async () => {
    const key = await t.createKey({ plan: 'free' });
    expect(await usage(key)).toMatchObject({ plan: 'free', daily_limit: 100, used: 0 });
  });
});

describe('quota across restarts and midnight (e2e)', () => {
  it('keeps the count after a restart on the same DATA_DIR', async () => {
    const first = await startApp();
    let key: string;
    const call = (t: TestApp) =>
      t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'R' });
    try {
      key = await first.createKey({ daily_limit: 2, rate_limit: 100 });
      expect((await call(first)).status).toBe(200);
      expect((await call(first)).status).toBe(200);
    } finally {
      await first.close();
    }

    const second = await startApp({ dataDir: first.dataDir });
    try {
      const refused = await call(second);
      expect(refused.status).toBe(402);
      expect(refused.body.detail).toMatch(/^Daily request limit exceeded \(2\/2\)\./);
    } finally {
      await second.close();
    }
  });

  it('serves the key again once the clock crosses UTC midnight', async () => {
    const clock = new FakeClock(new Date('2031-03-04T23:59:30.000Z'));
    const t = await startApp({ configure: (b) => b.overrideProvider(Clock).useValue(clock) });
    try {
      const key = await t.createKey({ daily_limit: 1, rate_limit: 100 });
      const call = () =>
        t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'M' });
      expect((await call()).status).toBe(200);
      const refused = await call();
      expect(refused.status).toBe(402);
      expect(refused.body.detail).toBe('Daily request limit exceeded (1/1). Resets in 0h 0m.');
      expect(refused.headers['retry-after']).toBe('30');

      clock.set(new Date('2031-03-05T00:00:01.000Z'));
      expect((await call()).status).toBe(200);
      const usage = await t.http().get('/api/v1/usage').set(bearer(key));
      expect(usage.body).toMatchObject({ used: 1, resets_at: '2031-03-06T00:00:00.000Z' });
    } finally {
      await t.close();
    }
  });
});

describe('rate limits (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    // A long window makes "a burst" independent of how fast this machine is.
    t = await startApp({ env: { RATE_LIMIT_WINDOW_MS: '60000', AUTH_FAILURE_LIMIT: '10' } });
  });
  afterAll(() => t.close());

  it('answers a burst past rate_limit with 429 and headers, without using quota', async () => {
    const { key, id } = await t.createKeyWithId({ rate_limit: 2, daily_limit: 100 });
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'R' }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(2);
    expect(limited).toHaveLength(4);
    for (const res of ok) expect(res.headers['x-ratelimit-limit']).toBe('2');
    // The first served call left one, the second none.
    expect(ok.map((res) => res.headers['x-ratelimit-remaining']).sort()).toEqual(['0', '1']);
    for (const res of limited) {
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.headers['x-ratelimit-limit']).toBe('2');
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(1);
      expect(res.body.detail).toMatch(
        /^Rate limit exceeded: 2 requests per 60 seconds\. Retry after (1 second|\d+ seconds)\.$/,
      );
    }
    // Only the two served calls used quota (read from the store: /usage shares the exhausted budget).
    const today = new Date().toISOString().slice(0, 10);
    expect(await t.app.get(UsageStore).getUsage(id, today)).toBe(2);
  });

  it('limits failed authentications per address: the eleventh bad key gets 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await t
        .http()
        .post('/api/v1/services/greet')
        .set(bearer(`sk_${'0'.repeat(63)}${i % 10}`))
        .send({ name: 'x' });
      statuses.push(res.status);
      if (i === 10) {
        expect(res.body.detail).toMatch(/^Too many failed authentication attempts/);
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    // A valid key from the same address is still served.
    const key = await t.createKey({ rate_limit: 100 });
    expect(
      (await t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'ok' })).status,
    ).toBe(200);
  });
});

describe.each([
  { trustProxy: '1', trusted: true },
  { trustProxy: 'loopback', trusted: true },
  { trustProxy: 'false', trusted: false },
])('failed authentications behind TRUST_PROXY=$trustProxy (e2e)', ({ trustProxy, trusted }) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ env: { AUTH_FAILURE_LIMIT: '2', TRUST_PROXY: trustProxy } });
  });
  afterAll(() => t.close());

  const failFrom = (address: string) =>
    t
      .http()
      .post('/api/v1/services/greet')
      .set(bearer(`sk_${'0'.repeat(64)}`))
      .set('X-Forwarded-For', address)
      .send({ name: 'x' });

  it(`counts them per ${trusted ? 'forwarded' : 'connecting'} address`, async () => {
    const first = [];
    for (let i = 0; i < 3; i++) first.push((await failFrom('203.0.113.7')).status);
    expect(first).toEqual([401, 401, 429]);
    // Another client behind the proxy: its own budget when the proxy is trusted, the same otherwise.
    expect((await failFrom('198.51.100.9')).status).toBe(trusted ? 401 : 429);
  });
});

describe('a client flat out over its rate limit (e2e)', () => {
  const clock = new FakeClock(new Date('2031-05-06T07:08:09.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ configure: (b) => b.overrideProvider(Clock).useValue(clock) });
  });
  afterAll(() => t.close());

  const tick = (ms: number) => clock.set(new Date(clock.now().getTime() + ms));

  // The service's clock is the test's: what is served depends only on the calls and the time
  // between them, never on how fast this machine is.
  it.each([
    ['a free key', {}, 15],
    ['a key with its own rate of 5', { rate_limit: 5 }, 5],
  ])(
    '%s gets 5 answers in each of 4 seconds while it keeps sending: no penalty block',
    async (_, limits, burst) => {
      const key = await t.createKey(limits);
      const greet = async () =>
        (await t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'F' })).status;
      const served = async (calls: number) => {
        const statuses = await Promise.all(Array.from({ length: calls }, greet));
        expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
        return statuses.filter((status) => status === 200).length;
      };
      // Its bucket first, then nothing more at that instant however much it sends.
      expect(await served(burst + 10)).toBe(burst);
      for (let second = 0; second < 4; second++) {
        let answered = 0;
        // Three calls every 50 ms, refusals and all: each 200 ms brings one call back.
        for (let step = 0; step < 20; step++) {
          tick(50);
          answered += await served(3);
        }
        expect(answered).toBe(5);
      }
    },
  );
});
