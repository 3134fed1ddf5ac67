import { bearer, startApp, TestApp } from '../support/app';
import { listenOnLoopback, rawRequest, sendRaw } from '../support/raw-http';

const TOO_DEEP = {
  detail: [
    {
      loc: ['body'],
      msg: 'Input is nested too deeply (more than 32 levels)',
      type: 'value_error',
    },
  ],
};

/** Regression tests for the hostile-input findings: what a request can cost is bounded, and it never ends the process. */
describe('hostile requests (e2e)', () => {
  let t: TestApp;
  let port: number;
  const uncaught: unknown[] = [];
  const record = (error: unknown) => uncaught.push(error);

  beforeAll(async () => {
    process.on('uncaughtException', record);
    t = await startApp({ env: { AUTH_FAILURE_LIMIT: '1000' } });
    port = await listenOnLoopback(t.app);
  });
  afterAll(async () => {
    process.off('uncaughtException', record);
    await t.close();
  });
  afterEach(() => expect(uncaught).toEqual([]));

  const greet = () => t.http().post('/api/v1/services/greet').set(bearer(t.adminKey));
  const stillServes = async () => {
    const res = await greet().send({ name: 'Alice' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Hello, Alice!', times: 1 });
  };

  describe('malformed percent-encoding in a path', () => {
    const MALFORMED = { detail: 'Malformed percent-encoding in the request path' };

    it.each(['GET', 'POST', 'DELETE', 'PATCH'])(
      '%s /api/v1/auth/api-keys/%%ZZ without a key is 400 {detail}, and the process serves on',
      async (method) => {
        const res = await sendRaw(port, rawRequest(method, '/api/v1/auth/api-keys/%ZZ'));
        expect(res.status).toBe(400);
        expect(res.json).toEqual(MALFORMED);
        expect(res.headers['x-request-id']).toBeDefined();
        await stillServes();
      },
    );

    it.each([
      '/%ZZ',
      '/api%ZZ/v1/services/greet',
      '/api/v1%E0%A4/services/greet',
      '/api/v1/services/%',
      '/api/v1/services/greet%C0',
      '/health/%Z',
      '/mcp%ff',
      '/api/v1/usage/%',
    ])('%s is 400 {detail} before anything else looks at it', async (path) => {
      const res = await sendRaw(
        port,
        rawRequest('POST', path, [['Content-Type', 'text/plain']], 'x'),
      );
      expect(res.status).toBe(400);
      expect(res.json).toEqual(MALFORMED);
      await stillServes();
    });

    it('counts the request under its route template, never the raw path', async () => {
      const series = (text: string) =>
        Number(
          /http_requests_total\{method="GET",route="\/api\/v1\/auth\/api-keys\/:id",status_code="400"\} (\d+)/.exec(
            text,
          )?.[1] ?? 0,
        );
      const before = series((await t.http().get('/metrics')).text);
      await sendRaw(port, rawRequest('GET', '/api/v1/auth/api-keys/%ZZqzxv'));
      const metrics = await t.http().get('/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.text).not.toContain('qzxv');
      expect(series(metrics.text) - before).toBe(1);
    });
  });

  describe('wide bodies', () => {
    // Tool routes take 64 KiB (TOOL_BODY_LIMIT_BYTES); key creation, the whole BODY_LIMIT_BYTES.
    it('answers 40,000 unknown fields with at most 20 entries, declared fields first', async () => {
      const body: Record<string, unknown> = { name: 5 };
      for (let i = 0; i < 40_000; i++) body[`k${i}`] = i;
      const res = await t.http().post('/api/v1/auth/api-keys').set(bearer(t.adminKey)).send(body);
      expect(res.status).toBe(400);
      const detail = res.body.detail as { loc: unknown[]; type: string }[];
      expect(detail).toHaveLength(20);
      expect(detail[0]).toEqual({
        loc: ['body', 'name'],
        msg: 'Input should be a valid string',
        type: 'string_type',
      });
      expect(detail.slice(1).map((issue) => issue.loc)).toEqual(
        Array.from({ length: 19 }, (_, i) => ['body', `k${i}`]),
      );
      expect(res.text.length).toBeLessThan(4096);
      await stillServes();
    });

    it('answers 5,000 unknown fields of a tool the same way', async () => {
      const body: Record<string, unknown> = { times: 'x' };
      for (let i = 0; i < 5_000; i++) body[`k${i}`] = i;
      const res = await greet().send(body);
      expect(res.status).toBe(400);
      const detail = res.body.detail as { loc: unknown[]; type: string }[];
      expect(detail).toHaveLength(20);
      expect(detail.slice(0, 2)).toEqual([
        { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'times'], msg: 'Input should be a valid integer', type: 'int_type' },
      ]);
      expect(detail.slice(2).map((issue) => issue.loc)).toEqual(
        Array.from({ length: 18 }, (_, i) => ['body', `k${i}`]),
      );
    });

    it('keeps extras in body order after the declared fields', async () => {
      const res = await greet()
        .set('Content-Type', 'application/json')
        .send('{"zeta":1,"name":"A","alpha":2,"shout":"no"}');
      expect(res.status).toBe(400);
      expect(res.body.detail).toEqual([
        { loc: ['body', 'shout'], msg: 'Input should be a valid boolean', type: 'bool_type' },
        { loc: ['body', 'zeta'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
        { loc: ['body', 'alpha'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      ]);
    });

    it('caps the 400 list of a key request at 20 entries', async () => {
      const body: Record<string, unknown> = { name: 'x' };
      for (let i = 0; i < 50; i++) body[`nope${i}`] = i;
      const res = await t.http().post('/api/v1/auth/api-keys').set(bearer(t.adminKey)).send(body);
      expect(res.status).toBe(400);
      expect(res.body.detail).toHaveLength(20);
    });
  });

  describe('the body limit of tool routes', () => {
    /** `{"name":"a","k0":0,…}`: unknown keys up to about `bytes`. */
    const unknownKeys = (bytes: number) => {
      const parts = ['"name":"a"'];
      for (let i = 0, length = 12; length + 12 < bytes; i++) {
        parts.push(`"k${i}":0`);
        length += parts[parts.length - 1].length + 1;
      }
      return `{${parts.join(',')}}`;
    };
    const TOOL_LIMIT = { detail: 'Request body too large: the limit is 65536 bytes' };
    const used = async () =>
      (await t.http().get('/api/v1/usage').set(bearer(t.adminKey))).body.used as number;

    it('refuses a tool body over 64 KiB unread (40,000 unknown keys): 413, counted nowhere', async () => {
      const before = await used();
      const body = unknownKeys(429_000);
      for (const path of ['/api/v1/services/greet', '/API/V1/Services/Greet/']) {
        const res = await t
          .http()
          .post(path)
          .set(bearer(t.adminKey))
          .set('Content-Type', 'application/json')
          .send(body);
        expect({ path, status: res.status, body: res.body as unknown }).toEqual({
          path,
          status: 413,
          body: TOOL_LIMIT,
        });
      }
      const noKey = await t
        .http()
        .post('/api/v1/services/greet')
        .set('Content-Type', 'application/json')
        .send(body);
      expect(noKey.status).toBe(413);
      expect({ counted: (await used()) - before }).toEqual({ counted: 0 });
    });

    it('validates a tool body within the limit as before: the first 20 unknown keys', async () => {
      const body = unknownKeys(65_000);
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(65_536);
      const res = await greet().set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(400);
      expect(res.body.detail).toHaveLength(20);
      expect(res.body.detail[0]).toEqual({
        loc: ['body', 'k0'],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
      });
    });

    it('leaves BODY_LIMIT_BYTES (1 MiB) to every other route: key creation, /mcp', async () => {
      const name = 'x'.repeat(100_000);
      const created = await t
        .http()
        .post('/api/v1/auth/api-keys')
        .set(bearer(t.adminKey))
        .send({ name });
      expect(created.status).toBe(400);
      expect(created.body.detail[0]).toMatchObject({ loc: ['body', 'name'] });
      const mcp = await t
        .http()
        .post('/mcp')
        .set(bearer(t.adminKey))
        .set('Accept', 'application/json, text/event-stream')
        .set('Content-Type', 'application/json')
        .send({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'greet', arguments: { name } },
        });
      expect(mcp.status).toBe(200);
      expect(mcp.body.result.isError).toBe(true);
    });
  });

  describe('deep bodies', () => {
    it('refuses 1 MB of [ while reading it, before authentication', async () => {
      const res = await t
        .http()
        .post('/api/v1/auth/api-keys')
        .set('Content-Type', 'application/json')
        .send('['.repeat(1_000_000));
      expect(res.status).toBe(400);
      expect(res.body).toEqual(TOO_DEEP);
    });

    it('refuses a well-formed body 33 levels deep without a key: 400, not 401', async () => {
      const res = await t
        .http()
        .post('/api/v1/services/greet')
        .set('Content-Type', 'application/json')
        .send(`${'['.repeat(33)}${']'.repeat(33)}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(TOO_DEEP);
    });

    it('counts only structure: brackets inside strings are text', async () => {
      const res = await t
        .http()
        .post('/api/v1/services/greet')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ name: `${'[{'.repeat(500)}"\\` }));
      expect(res.status).toBe(401);
    });

    it('lets 32 levels through to authentication', async () => {
      const res = await t
        .http()
        .post('/api/v1/services/greet')
        .set('Content-Type', 'application/json')
        .send(`{"name":${'['.repeat(31)}${']'.repeat(31)}}`);
      expect(res.status).toBe(401);
    });
  });

  describe('deep MCP arguments', () => {
    const call = (args: string) =>
      t
        .http()
        .post('/mcp')
        .set(bearer(t.adminKey))
        .set('Accept', 'application/json, text/event-stream')
        .set('Content-Type', 'application/json')
        .send(
          `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":${args}}}`,
        );
    const nested = (levels: number) =>
      `{"name":"A","x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;

    it('counts the depth in the arguments: 33 levels is the 400 detail as an isError result', async () => {
      const res = await call(nested(33));
      expect(res.status).toBe(200);
      expect(res.body.result.isError).toBe(true);
      expect(JSON.parse(res.body.result.content[0].text as string)).toEqual(TOO_DEEP.detail);
    });

    it('counts arguments refused for their depth nowhere against the quota, as REST (fuzz)', async () => {
      const used = async () =>
        (await t.http().get('/api/v1/usage').set(bearer(t.adminKey))).body.used as number;
      const before = await used();
      const res = await call(nested(33));
      expect(JSON.parse(res.body.result.content[0].text as string)).toEqual(TOO_DEEP.detail);
      const rest = await greet().set('Content-Type', 'application/json').send(nested(33));
      expect(rest.status).toBe(400);
      expect({ counted: (await used()) - before }).toEqual({ counted: 0 });
    });

    it('lets 32 levels of arguments reach validation', async () => {
      const res = await call(nested(32));
      expect(res.status).toBe(200);
      const detail = JSON.parse(res.body.result.content[0].text as string) as { type: string }[];
      expect(detail[0]).toMatchObject({ type: 'extra_forbidden' });
    });

    it('refuses a body deeper than its envelope allows while reading it', async () => {
      const res = await call(nested(40));
      expect(res.status).toBe(400);
      expect(res.body).toEqual(TOO_DEEP);
    });
  });

  describe('two Authorization headers', () => {
    it('answers 400 Multiple Authorization headers at the authentication step', async () => {
      const res = await sendRaw(
        port,
        rawRequest(
          'POST',
          '/api/v1/services/greet',
          [
            ['Authorization', `Bearer ${t.adminKey}`],
            ['Authorization', 'Bearer sk_other'],
            ['Content-Type', 'application/json'],
          ],
          '{"name":"A"}',
        ),
      );
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ detail: 'Multiple Authorization headers' });
    });

    it('is ignored by public routes', async () => {
      const res = await sendRaw(
        port,
        rawRequest('GET', '/health', [
          ['Authorization', 'Bearer a'],
          ['Authorization', 'Bearer b'],
        ]),
      );
      expect(res.status).toBe(200);
    });
  });

  describe('what Node answers by itself unless told otherwise (found by the fuzz suite)', () => {
    it('answers an HTTP/1.1 request without Host 400 {detail}', async () => {
      const res = await sendRaw(port, 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n');
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ detail: 'Bad Request: HTTP/1.1 requires a Host header' });
    });

    it('answers an Expect other than 100-continue 417 {detail}', async () => {
      const res = await sendRaw(port, rawRequest('GET', '/health', [['Expect', 'junk']]));
      expect(res.status).toBe(417);
      expect(res.json).toEqual({ detail: 'Expectation Failed: only 100-continue is supported' });
    });

    it('answers CONNECT 405 {detail} instead of dropping the connection', async () => {
      const res = await sendRaw(
        port,
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n',
      );
      expect(res.status).toBe(405);
      expect(res.json).toEqual({ detail: 'Method Not Allowed' });
      await stillServes();
    });

    it.each([
      ['Range', 'bytes=999999999-', 416],
      ['If-Match', '"x"', 412],
    ])(
      'answers a docs asset with %s: %s as %d {detail}, never 500',
      async (name, value, status) => {
        const res = await t.http().get('/docs/swagger-ui.css').set(name, value);
        expect(res.status).toBe(status);
        expect(res.body).toEqual({ detail: expect.any(String) });
        if (status === 416) expect(res.headers['content-range']).toMatch(/^bytes \*\/\d+$/);
      },
    );

    it.each([
      [{ jsonrpc: '2.0', id: 1, method: 'initialize' }],
      [{ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } }],
      [{ jsonrpc: '2.0', id: 1, method: 'tools/call' }],
    ])('answers the malformed MCP request %j with -32602, not an internal error', async (body) => {
      const res = await t
        .http()
        .post('/mcp')
        .set(bearer(t.adminKey))
        .set('Accept', 'application/json, text/event-stream')
        .send(body);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32602 } });
    });
  });

  describe("what Node's HTTP parser refuses", () => {
    it('answers bad header syntax 400 {detail}', async () => {
      const res = await sendRaw(port, 'GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ detail: 'Bad Request: malformed HTTP request' });
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    });

    it('answers 17 KB of headers 431 {detail}', async () => {
      const res = await sendRaw(
        port,
        rawRequest('GET', '/health', [['X-Big', 'a'.repeat(17 * 1024)]]),
      );
      expect(res.status).toBe(431);
      expect(res.json).toEqual({ detail: 'Request Header Fields Too Large' });
    });

    it('answers two Content-Lengths 400 {detail}', async () => {
      const res = await sendRaw(
        port,
        'POST /api/v1/services/greet HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      );
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ detail: 'Bad Request: malformed HTTP request' });
      await stillServes();
    });
  });
});

describe('slow clients (e2e)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startApp({ env: { HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '600' } });
    port = await listenOnLoopback(t.app);
  });
  afterAll(() => t.close());

  it('applies the timeout settings to the server, with safe defaults', async () => {
    const defaults = await startApp();
    try {
      const server = defaults.app.getHttpServer() as import('node:http').Server;
      expect([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout]).toEqual([
        10_000, 30_000, 65_000,
      ]);
    } finally {
      await defaults.close();
    }
  });

  it('answers a client that never finishes its headers 408 {detail} and closes', async () => {
    const res = await sendRaw(port, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n', {
      timeoutMs: 10_000,
    });
    expect(res.status).toBe(408);
    expect(res.json).toEqual({ detail: 'Request Timeout' });
    expect(res.closed).toBe(true);
  });
});
