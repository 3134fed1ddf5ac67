import { LogControl } from '../../src/logging/log-control';
import { bearer, startApp, TestApp } from '../support/app';
import { FAILURE_SECRET, FailingToolModule } from '../support/failing-tool.module';

type LogRecord = Record<string, unknown> & {
  req?: { id?: string };
  res?: { status_code?: number };
};

describe('structured logs (e2e)', () => {
  let t: TestApp;
  let key: string;
  let keyId: string;

  beforeAll(async () => {
    t = await startApp({ imports: [FailingToolModule] });
    key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
    keyId = (await t.http().get('/api/v1/auth/me').set(bearer(key))).body.key_id;
  });
  afterAll(() => t.close());
  afterEach(() => t.app.get(LogControl).setVerbose(false));

  const linesOf = (requestId: string) =>
    (t.logs.records() as LogRecord[]).filter((r) => r.req?.id === requestId);

  it('writes one JSON access line per request while verbose: request id and key id, never the key', async () => {
    t.app.get(LogControl).setVerbose(true);
    const res = await t
      .http()
      .post('/api/v1/services/greet')
      .set(bearer(key))
      .set('X-Request-Id', 'log-test-greet-1')
      .send({ name: 'Ada' });
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('log-test-greet-1');

    const lines = linesOf('log-test-greet-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      key_id: keyId,
      req: { id: 'log-test-greet-1', method: 'POST', url: '/api/v1/services/greet' },
      res: { status_code: 200 },
      responseTime: expect.any(Number),
    });
    expect(typeof lines[0].time).toBe('string');
    expect(t.logs.text()).not.toContain(key);
    expect(t.logs.text()).not.toContain(key.slice(3));
  });

  it('logs requests answered before routing too (415), with their request id', async () => {
    t.app.get(LogControl).setVerbose(true);
    const res = await t
      .http()
      .post('/api/v1/services/greet')
      .set(bearer(key))
      .set('X-Request-Id', 'log-test-415')
      .set('Content-Type', 'text/plain')
      .send('Ada');
    expect(res.status).toBe(415);
    expect(linesOf('log-test-415')).toEqual([
      expect.objectContaining({ res: { status_code: 415 } }),
    ]);
    expect(t.logs.text()).not.toContain(key);
  });

  it('writes no access line while verbose is off', async () => {
    t.app.get(LogControl).setVerbose(false);
    const res = await t
      .http()
      .post('/api/v1/services/greet')
      .set(bearer(key))
      .set('X-Request-Id', 'log-test-quiet')
      .send({ name: 'Ada' });
    expect(res.status).toBe(200);
    expect(linesOf('log-test-quiet')).toEqual([]);
  });

  it("logs a failure with the request's id and its cause, and tells the client nothing", async () => {
    const res = await t
      .http()
      .post('/api/v1/services/explode')
      .set(bearer(key))
      .set('X-Request-Id', 'log-test-500')
      .send({});
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ detail: 'Internal Server Error' });
    expect(JSON.stringify(res.body)).not.toContain(FAILURE_SECRET);

    const errors = linesOf('log-test-500').filter((r) => r.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0].msg).toContain('Unhandled error on POST /api/v1/services/explode');
    expect(JSON.stringify(errors[0].err)).toContain(FAILURE_SECRET);
    expect(t.logs.text()).not.toContain(key);
  });

  it('redacts the Authorization header wherever a request is logged', async () => {
    t.app.get(LogControl).setVerbose(true);
    await t.http().get('/api/v1/usage').set(bearer(key)).set('X-Request-Id', 'log-test-usage');
    expect(linesOf('log-test-usage')).toHaveLength(1);
    expect(t.logs.text()).not.toContain(key);
    expect(t.logs.text()).not.toMatch(/Bearer sk_/i);
  });

  it('redacts a key sent in a query string by mistake', async () => {
    t.app.get(LogControl).setVerbose(true);
    await t.http().get(`/api/v1/usage?api_key=${key}`).set('X-Request-Id', 'log-test-query-key');
    const [line] = linesOf('log-test-query-key');
    expect((line.req as { url: string }).url).toBe('/api/v1/usage?api_key=sk_[REDACTED]');
    expect(t.logs.text()).not.toContain(key);
  });
});
