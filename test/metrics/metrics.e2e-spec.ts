import { bearer, startApp, TestApp } from '../support/app';
import { FailingToolModule } from '../support/failing-tool.module';
import { metricValue } from '../support/metrics';

describe('metrics (e2e)', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp({ imports: [FailingToolModule], env: { AUTH_FAILURE_LIMIT: '3' } });
    key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
  });
  afterAll(() => t.close());

  const scrape = async (app = t) => {
    const res = await app.http().get('/metrics');
    expect(res.status).toBe(200);
    return res.text;
  };

  /** How much each metric of `app` moved while `work` ran. */
  async function deltaOn(
    app: TestApp,
    work: () => Promise<unknown>,
    ...metrics: [string, Record<string, string>][]
  ): Promise<number[]> {
    const before = await scrape(app);
    await work();
    const after = await scrape(app);
    return metrics.map(
      ([name, labels]) => metricValue(after, name, labels) - metricValue(before, name, labels),
    );
  }
  const delta = (work: () => Promise<unknown>, ...metrics: [string, Record<string, string>][]) =>
    deltaOn(t, work, ...metrics);

  const greet = (body: object, k = key) =>
    t.http().post('/api/v1/services/greet').set(bearer(k)).send(body);

  it('is served to anyone in the Prometheus text format, process metrics included', async () => {
    const res = await t.http().get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain;/);
    expect(res.headers['content-type']).toContain('version=0.0.4');
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'http_requests_total',
      'http_request_duration_seconds',
      'rate_limit_rejections_total',
    ]) {
      expect(res.text).toContain(`# TYPE ${name} `);
    }
  });

  it('counts requests and their latency by method, route template and status', async () => {
    const labels = { method: 'POST', route: '/api/v1/services/greet', status_code: '200' };
    const [requests, observed, calls, timed] = await delta(
      async () => {
        expect((await greet({ name: 'Ada' })).status).toBe(200);
        expect((await greet({ name: 'Bob' })).status).toBe(200);
      },
      ['http_requests_total', labels],
      ['http_request_duration_seconds_count', labels],
      ['tool_calls_total', { tool: 'greet', outcome: 'success' }],
      ['tool_call_duration_seconds_count', { tool: 'greet', outcome: 'success' }],
    );
    expect([requests, observed, calls, timed]).toEqual([2, 2, 2, 2]);
  });

  it('counts rejected tool calls by outcome, including those answered before routing', async () => {
    const [invalid, unauthenticated, unsupported] = await delta(
      async () => {
        expect((await greet({ name: 'Ada', times: 0 })).status).toBe(400);
        expect((await t.http().post('/api/v1/services/greet').send({ name: 'Ada' })).status).toBe(
          401,
        );
        const xml = await t
          .http()
          .post('/api/v1/services/greet')
          .set(bearer(key))
          .set('Content-Type', 'application/xml')
          .send('<name>Ada</name>');
        expect(xml.status).toBe(415);
      },
      ['tool_calls_total', { tool: 'greet', outcome: 'invalid_request' }],
      ['tool_calls_total', { tool: 'greet', outcome: 'unauthenticated' }],
      ['http_requests_total', { route: '/api/v1/services/greet', status_code: '415' }],
    );
    expect([invalid, unauthenticated, unsupported]).toEqual([2, 1, 1]);
  });

  it('labels unknown paths "unmatched", never with the raw URL', async () => {
    // A tool name no tool has reaches the route of the sources' tools (docs/sources.md): its
    // template, never the name.
    const [unmatched, unknownTool] = await delta(
      async () => {
        expect((await t.http().get('/no/such/path-qzxv')).status).toBe(404);
        expect(
          (await t.http().post('/api/v1/services/no_such_tool_qzxv').set(bearer(key))).status,
        ).toBe(404);
      },
      ['http_requests_total', { route: 'unmatched', status_code: '404' }],
      ['http_requests_total', { route: '/api/v1/services/:name', status_code: '404' }],
    );
    expect([unmatched, unknownTool]).toEqual([1, 1]);
    expect(await scrape()).not.toContain('qzxv');
  });

  it('counts quota rejections (402)', async () => {
    const once = await t.createKey({ scope_template: 'standard', daily_limit: 1 });
    const [quota, outcome] = await delta(
      async () => {
        expect((await greet({ name: 'Ada' }, once)).status).toBe(200);
        expect((await greet({ name: 'Ada' }, once)).status).toBe(402);
      },
      ['quota_rejections_total', { tool: 'greet' }],
      ['tool_calls_total', { tool: 'greet', outcome: 'quota_exceeded' }],
    );
    expect([quota, outcome]).toEqual([1, 1]);
  });

  it('counts rate-limit rejections of a key (429)', async () => {
    const slow = await t.createKey({ scope_template: 'standard', rate_limit: 1 });
    const [limited] = await delta(async () => {
      // One call a second: the second of two calls in a row is refused, unless a second boundary
      // falls between them; a few more tries make that certain without depending on timing.
      let refused = 0;
      for (let i = 0; i < 10 && refused === 0; i++) {
        if ((await greet({ name: 'Ada' }, slow)).status === 429) refused++;
      }
      expect(refused).toBe(1);
    }, ['rate_limit_rejections_total', { kind: 'key' }]);
    expect(limited).toBe(1);
  });

  it('counts tool failures (5xx)', async () => {
    const [failures, errors] = await delta(
      async () => {
        const res = await t.http().post('/api/v1/services/explode').set(bearer(key)).send({});
        expect(res.status).toBe(500);
      },
      ['tool_failures_total', { tool: 'explode' }],
      ['tool_calls_total', { tool: 'explode', outcome: 'error' }],
    );
    expect([failures, errors]).toEqual([1, 1]);
  });

  it('counts failed-authentication limits (429, kind auth)', async () => {
    // An app of its own: using up its address's failures would turn the other tests' 401s to 429s.
    const own = await startApp({ env: { AUTH_FAILURE_LIMIT: '3' } });
    try {
      const [limited, key429] = await deltaOn(
        own,
        async () => {
          // The limit is 3 failures an address: keep failing until refused.
          let status = 401;
          for (let i = 0; i < 5 && status === 401; i++) {
            status = (await own.http().get('/api/v1/usage').set(bearer('sk_wrong'))).status;
          }
          expect(status).toBe(429);
        },
        ['rate_limit_rejections_total', { kind: 'auth' }],
        ['rate_limit_rejections_total', { kind: 'key' }],
      );
      expect([limited, key429]).toEqual([1, 0]);
    } finally {
      await own.close();
    }
  });

  it('never carries a key, a key id or a secret', async () => {
    const me = await t.http().get('/api/v1/auth/me').set(bearer(key));
    const text = await scrape();
    expect(text).not.toContain(me.body.key_id);
    expect(text).not.toContain(key);
    expect(text).not.toMatch(/sk_[0-9a-f]/);
    expect(text).not.toMatch(/key_[0-9a-f]{16}/);
  });
});
