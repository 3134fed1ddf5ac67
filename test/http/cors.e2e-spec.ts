import { bearer, startApp, TestApp } from '../support/app';

const APP = 'https://app.example.com';
const AGENT = 'https://agent.example.com';

describe('CORS for browser clients (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({
      env: { CORS_ORIGINS: `${APP}, https://other.example.com`, MCP_ALLOWED_ORIGINS: AGENT },
    });
  });
  afterAll(() => t.close());

  const preflight = (path: string, origin: string) =>
    t
      .http()
      .options(path)
      .set('Origin', origin)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization, content-type');

  it('answers a preflight from a listed origin 204 with the contract headers', async () => {
    const res = await preflight('/api/v1/services/greet', APP);
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['access-control-allow-methods']).toBe('GET,POST,PATCH,DELETE,OPTIONS');
    expect(res.headers['access-control-allow-headers']).toBe(
      'Authorization,Content-Type,Idempotency-Key,X-Request-Id,Mcp-Method,Mcp-Name,MCP-Protocol-Version,Prefer',
    );
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers.vary).toContain('Origin');
  });

  it('lets a listed origin read the answer and the headers it needs', async () => {
    const res = await t
      .http()
      .post('/api/v1/services/greet')
      .set('Origin', APP)
      .set(bearer(t.adminKey))
      .send({ name: 'Ada' });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    const exposed = res.headers['access-control-expose-headers'].split(',');
    for (const name of [
      'Retry-After',
      'X-RateLimit-Remaining',
      'X-Quota-Remaining',
      'X-Request-Id',
      'Location',
      'Link',
      'Idempotent-Replayed',
      'X-Quota-Cost',
      'X-Quota-Monthly-Limit',
      'X-Quota-Monthly-Used',
      'X-Quota-Monthly-Remaining',
      'WWW-Authenticate',
    ]) {
      expect(exposed).toContain(name);
    }
  });

  it('gives an unlisted origin no CORS headers: its preflight is 405 as any OPTIONS', async () => {
    const res = await preflight('/api/v1/services/greet', 'https://evil.example.com');
    expect(res.status).toBe(405);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const get = await t.http().get('/health').set('Origin', 'https://evil.example.com');
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('allows the union of CORS_ORIGINS and MCP_ALLOWED_ORIGINS on /mcp, only CORS_ORIGINS elsewhere', async () => {
    expect((await preflight('/mcp', AGENT)).headers['access-control-allow-origin']).toBe(AGENT);
    expect((await preflight('/mcp', APP)).headers['access-control-allow-origin']).toBe(APP);
    expect(
      (await preflight('/api/v1/auth/me', AGENT)).headers['access-control-allow-origin'],
    ).toBeUndefined();
    const call = await t
      .http()
      .post('/mcp')
      .set('Origin', APP)
      .set(bearer(t.adminKey))
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(call.status).toBe(200);
    expect(call.headers['access-control-allow-origin']).toBe(APP);
  });
});

describe('CORS off by default (e2e)', () => {
  it('sends no CORS headers and answers a preflight 405', async () => {
    const t = await startApp();
    try {
      const res = await t
        .http()
        .options('/api/v1/services/greet')
        .set('Origin', APP)
        .set('Access-Control-Request-Method', 'POST');
      expect(res.status).toBe(405);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
