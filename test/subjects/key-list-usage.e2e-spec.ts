import { Clock } from '../../src/kernel/common/clock';
import { bearer, startApp, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';

const KEYS = '/api/v1/auth/api-keys';

const queryIssue = (name: string, type: string, msg: string) => ({
  detail: [{ loc: ['query', name], msg, type }],
});
const NOT_INT = 'Input should be a valid integer, unable to parse string as an integer';

describe('key list pages, usage history, limits on another instance (e2e)', () => {
  const clock = new FakeClock(new Date('2031-07-01T12:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({
      env: { AUTH_FAILURE_LIMIT: '3' },
      configure: (b) => b.overrideProvider(Clock).useValue(clock),
    });
  });
  afterAll(() => t.close());

  const admin = () => bearer(t.adminKey);
  const greet = (key: string, app = t) =>
    app.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'Ada' });

  describe('GET /api/v1/auth/api-keys pages', () => {
    it('pages in (created_at, id) order with an opaque cursor and a relative Link', async () => {
      // An app of its own: it counts every key of the deployment.
      const own = await startApp();
      try {
        await pages(own);
      } finally {
        await own.close();
      }
    });

    it('answers bad limit and cursor values with query 400s, and ignores unknown parameters', async () => {
      const cases: [string, object][] = [
        [
          'limit=0',
          queryIssue('limit', 'greater_than_equal', 'Input should be greater than or equal to 1'),
        ],
        [
          'limit=1001',
          queryIssue('limit', 'less_than_equal', 'Input should be less than or equal to 1000'),
        ],
        ['limit=ten', queryIssue('limit', 'int_parsing', NOT_INT)],
        ['limit=1.5', queryIssue('limit', 'int_parsing', NOT_INT)],
        [
          'cursor=bm90LW91cnM',
          queryIssue(
            'cursor',
            'value_error',
            'Value error, this cursor was not issued by the service',
          ),
        ],
      ];
      for (const [query, body] of cases) {
        const res = await t.http().get(`${KEYS}?${query}`).set(admin());
        expect([query, res.status, res.body]).toEqual([query, 400, body]);
      }
      expect((await t.http().get(`${KEYS}?colour=red&limit=1`).set(admin())).status).toBe(200);
    });
  });

  describe('usage history', () => {
    it('lists days newest first, days without calls as 0, for the caller and for any key', async () => {
      const { id, key } = await t.createKeyWithId({ scope_template: 'standard' });
      clock.set(new Date('2031-07-01T12:00:00.000Z'));
      await greet(key).expect(200);
      clock.set(new Date('2031-07-03T08:00:00.000Z'));
      await greet(key).expect(200);
      await greet(key).expect(200);
      const own = await t.http().get('/api/v1/usage?days=4').set(bearer(key));
      expect(own.status).toBe(200);
      expect(own.body).toMatchObject({ used: 2, daily_limit: 100, remaining: 98 });
      const greets = (n: number) =>
        n ? { greet: { calls: n, credits: n, failed: 0 } } : ({} as Record<string, never>);
      expect(own.body.history).toEqual([
        { date: '2031-07-03', used: 2, by_tool: greets(2) },
        { date: '2031-07-02', used: 0, by_tool: greets(0) },
        { date: '2031-07-01', used: 1, by_tool: greets(1) },
        { date: '2031-06-30', used: 0, by_tool: greets(0) },
      ]);
      const today = await t.http().get('/api/v1/usage').set(bearer(key));
      expect(today.body.history).toEqual([{ date: '2031-07-03', used: 2, by_tool: greets(2) }]);
      const byAdmin = await t.http().get(`${KEYS}/${id}/usage?days=4`).set(admin());
      expect(byAdmin.status).toBe(200);
      expect(byAdmin.body).toEqual(own.body);
      const ninety = await t.http().get(`${KEYS}/${id}/usage?days=90`).set(admin());
      expect(ninety.body.history).toHaveLength(90);
      expect(ninety.body.history[89]).toEqual({ date: '2031-04-05', used: 0, by_tool: {} });
    });

    it('answers days out of range, not a number; unknown keys 404; no admin:read 403', async () => {
      const key = await t.createKey();
      for (const [query, body] of [
        [
          'days=0',
          queryIssue('days', 'greater_than_equal', 'Input should be greater than or equal to 1'),
        ],
        [
          'days=91',
          queryIssue('days', 'less_than_equal', 'Input should be less than or equal to 90'),
        ],
        ['days=x', queryIssue('days', 'int_parsing', NOT_INT)],
      ] as const) {
        const res = await t.http().get(`/api/v1/usage?${query}`).set(bearer(key));
        expect([res.status, res.body]).toEqual([400, body]);
      }
      const unknown = await t.http().get(`${KEYS}/key_0000000000000000/usage`).set(admin());
      expect([unknown.status, unknown.body]).toEqual([404, { detail: 'API key not found' }]);
      const { id } = await t.createKeyWithId();
      const refused = await t.http().get(`${KEYS}/${id}/usage`).set(bearer(key));
      expect(refused.status).toBe(403);
    });
  });

  it('enforces a patched limit at once on another instance of the same deployment', async () => {
    const other = await startApp({
      dataDir: t.dataDir,
      configure: (b) => b.overrideProvider(Clock).useValue(clock),
    });
    try {
      const { id, key } = await t.createKeyWithId({ scope_template: 'standard' });
      await greet(key, other).expect(200);
      await t.http().patch(`${KEYS}/${id}`).set(admin()).send({ daily_limit: 2 }).expect(200);
      await greet(key, other).expect(200);
      const refused = await greet(key, other);
      expect(refused.status).toBe(402);
      expect(refused.body.detail).toMatch(/^Daily request limit exceeded \(2\/2\)/);
      await t.http().patch(`${KEYS}/${id}`).set(admin()).send({ enabled: false }).expect(200);
      expect((await greet(key, other)).status).toBe(401);
    } finally {
      await other.close();
    }
  });

  it("counts a disabled key's use as a failed authentication", async () => {
    // An app of its own: it uses up this client address's failed authentications.
    const own = await startApp({ env: { AUTH_FAILURE_LIMIT: '3' } });
    try {
      const { id, key } = await own.createKeyWithId({ scope_template: 'standard' });
      await own
        .http()
        .patch(`${KEYS}/${id}`)
        .set(bearer(own.adminKey))
        .send({ enabled: false })
        .expect(200);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push(
          (await own.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'A' }))
            .status,
        );
      }
      // The limit is 3 failures a minute from this address.
      expect(statuses).toEqual([401, 401, 401, 429]);
    } finally {
      await own.close();
    }
  });
  async function pages(t: TestApp): Promise<void> {
    const admin = () => bearer(t.adminKey);
    for (let i = 0; i < 4; i++) await t.createKey({ name: `page-${i}` });
    const all = (await t.http().get(KEYS).set(admin()).expect(200)).body as { id: string }[];
    expect(all.length).toBe(5);
    const seen: string[] = [];
    let url: string | undefined = `${KEYS}?limit=2`;
    while (url) {
      const res = await t.http().get(url).set(admin()).expect(200);
      seen.push(...(res.body as { id: string }[]).map((k) => k.id));
      const link = res.headers.link as string | undefined;
      if (link)
        expect(link).toMatch(/^<\/api\/v1\/auth\/api-keys\?limit=2&cursor=[\w-]+>; rel="next"$/);
      url = link ? /^<([^>]+)>/.exec(link)![1] : undefined;
    }
    expect(seen).toEqual(all.map((k) => k.id));
    const last = await t.http().get(`${KEYS}?limit=5`).set(admin());
    expect(last.headers.link).toBeUndefined();
  }
});
