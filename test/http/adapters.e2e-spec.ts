import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { startApp, type TestApp } from '../support/app';
import { listenOnLoopback, rawRequest, sendRaw } from '../support/raw-http';

/**
 * The same requests to an Express app and a Fastify app, answers compared as CONTRACT "Fastify"
 * says: status, body bytes, Content-Type, every header the contract names and helmet's (all headers
 * but Date, Connection and Keep-Alive). Each app has its own store and takes the same calls in the
 * same order, so counts and limits agree; values that follow the clock are compared by shape.
 */

interface Call {
  name: string;
  method?: string;
  path: string;
  headers?: OutgoingHttpHeaders;
  body?: string | Buffer;
  /** Headers whose values follow what each app has counted (the metrics' length). */
  own?: string[];
  /** `admin` (the app's own admin key), `limited` (rate limit 1) or none. */
  as?: 'admin' | 'caller' | 'limited';
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const UNCOMPARED = new Set(['date', 'connection', 'keep-alive']);
/**
 * Values that follow the clock, compared by shape: seconds until a window or the UTC day ends, and
 * what remains of a rate window (the two apps' calls, a few ms apart, may fall in different windows).
 */
const CLOCK = new Set([
  'x-ratelimit-reset',
  'retry-after',
  'x-quota-reset',
  'x-ratelimit-remaining',
]);
const ORIGIN = 'https://app.example';
const LIMIT = 4096;
/** Tool routes take less (TOOL_BODY_LIMIT_BYTES). */
const TOOL_LIMIT = 2048;

function send(port: number, call: Call, key: string | undefined): Promise<Answer> {
  const headers: OutgoingHttpHeaders = { 'x-request-id': `cmp-${call.name}`, ...call.headers };
  if (key) headers.authorization = `Bearer ${key}`;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: call.method ?? 'POST', path: call.path, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(call.body);
  });
}

/** The headers as compared: clock-driven values reduced to their shape. */
function comparable(answer: Answer, own: string[] = []): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (UNCOMPARED.has(name) || own.includes(name)) continue;
    headers[name] = CLOCK.has(name) ? /^\d+$/.test(String(value)) : value;
  }
  return headers;
}

const json = (value: unknown, headers: OutgoingHttpHeaders = {}) => ({
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(value),
});
const greet = { name: 'Ada', shout: true };
const GREET = '/api/v1/services/greet';
const deep = '['.repeat(40) + ']'.repeat(40);

const CALLS: Call[] = [
  { name: 'greet', path: '/api/v1/services/greet', as: 'caller', ...json(greet) },
  { name: 'types', path: '/api/v1/services/greet', as: 'caller', ...json({ name: 3, shout: 'y' }) },
  { name: 'extra', path: '/api/v1/services/greet', as: 'caller', ...json({ name: 'A', x: 1 }) },
  { name: 'no-key', path: '/api/v1/services/greet', ...json(greet) },
  {
    name: 'bad-key',
    path: '/api/v1/services/greet',
    ...json(greet, { authorization: 'Bearer sk_nope' }),
  },
  { name: 'case-slash', path: '/API/v1/Services/GREET/', as: 'caller', ...json(greet) },
  {
    name: 'empty-json',
    path: '/api/v1/services/greet',
    as: 'caller',
    headers: { 'content-type': 'application/json' },
  },
  { name: 'no-body', path: '/api/v1/services/greet', as: 'caller' },
  {
    name: 'text',
    path: '/api/v1/services/greet',
    as: 'caller',
    headers: { 'content-type': 'text/plain' },
    body: 'hi',
  },
  {
    name: 'bad-json',
    path: '/api/v1/services/greet',
    as: 'caller',
    headers: { 'content-type': 'application/json' },
    body: '{"name":',
  },
  {
    name: 'deep',
    path: '/api/v1/services/greet',
    as: 'caller',
    headers: { 'content-type': 'application/json' },
    body: deep,
  },
  ...(
    [
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ] as const
  ).map(([encoding, compress]) => ({
    name: `encoding-${encoding}`,
    path: '/api/v1/services/greet',
    as: 'caller' as const,
    headers: { 'content-type': 'application/json', 'content-encoding': encoding },
    body: compress(JSON.stringify(greet)),
  })),
  {
    name: 'bom',
    path: '/api/v1/services/greet',
    as: 'caller',
    headers: { 'content-type': 'application/json; charset="UTF-8"' },
    body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(greet))]),
  },
  {
    name: 'chunked',
    path: GREET,
    as: 'caller',
    ...json(greet, { 'transfer-encoding': 'chunked' }),
  },
  {
    name: 'identity',
    path: GREET,
    as: 'caller',
    ...json(greet, { 'content-encoding': 'identity' }),
  },
  {
    name: 'not-utf8',
    path: '/api/v1/services/greet',
    as: 'caller',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from([
      0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d,
    ]),
  },
  {
    name: 'mcp-foreign-origin',
    path: '/mcp',
    as: 'caller',
    headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
    body: '{"broken":',
  },
  {
    name: 'not-gzip',
    path: '/api/v1/services/greet',
    as: 'caller',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: '{"name":"A"}',
  },
  {
    name: 'latin1',
    path: '/api/v1/services/greet',
    as: 'caller',
    headers: { 'content-type': 'application/json; charset=latin1' },
    body: JSON.stringify(greet),
  },
  {
    name: 'vendor-json',
    path: '/api/v1/services/greet',
    as: 'caller',
    headers: { 'content-type': 'application/vnd.api+json' },
    body: JSON.stringify(greet),
  },
  {
    name: 'too-large',
    path: '/api/v1/services/greet',
    as: 'caller',
    ...json({ name: 'x'.repeat(TOOL_LIMIT) }),
  },
  {
    name: 'at-limit',
    path: '/api/v1/services/greet',
    as: 'caller',
    ...json({ name: 'x'.repeat(TOOL_LIMIT - 11) }),
  },
  {
    name: 'too-large-gzip',
    path: '/api/v1/services/greet',
    as: 'caller',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: gzipSync(JSON.stringify({ name: 'x'.repeat(TOOL_LIMIT) })),
  },
  {
    name: 'too-large-chunked',
    path: '/API/V1/SERVICES/GREET/',
    as: 'caller',
    headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    body: JSON.stringify({ name: 'x'.repeat(TOOL_LIMIT) }),
  },
  {
    name: 'over-tool-limit-elsewhere',
    path: '/api/v1/auth/api-keys',
    as: 'admin',
    ...json({ name: 'x'.repeat(TOOL_LIMIT) }),
  },
  {
    name: 'too-large-elsewhere',
    path: '/api/v1/auth/api-keys',
    as: 'admin',
    ...json({ name: 'x'.repeat(LIMIT) }),
  },
  { name: 'wrong-method', method: 'GET', path: '/api/v1/services/greet', as: 'caller' },
  { name: 'delete-tool', method: 'DELETE', path: '/api/v1/services/greet', as: 'caller' },
  { name: 'nowhere', method: 'GET', path: '/nowhere' },
  {
    name: 'long-param',
    method: 'GET',
    path: `/api/v1/auth/api-keys/${'k'.repeat(1000)}`,
    as: 'admin',
  },
  { name: 'malformed-path', method: 'GET', path: '/api/v1/auth/api-keys/%ZZ', as: 'admin' },
  { name: 'malformed-tool', path: '/api/v1/services/gr%ZZeet', as: 'caller', ...json(greet) },
  { name: 'discovery', method: 'GET', path: '/api/v1/services', as: 'caller' },
  { name: 'discovery-query', method: 'GET', path: '/api/v1/services?x=1&x=2', as: 'caller' },
  {
    name: 'config-get',
    path: '/api/v1/services/config_get',
    as: 'admin',
    ...json({ key: 'logging.level' }),
  },
  { name: 'openapi', method: 'GET', path: '/openapi.json' },
  { name: 'docs-page', method: 'GET', path: '/docs' },
  { name: 'front-page', method: 'GET', path: '/' },
  { name: 'front-page-query', method: 'GET', path: '/?from=browser' },
  { name: 'front-page-head', method: 'HEAD', path: '/' },
  { name: 'front-page-post', method: 'POST', path: '/', ...json({}) },
  { name: 'metrics-head', method: 'HEAD', path: '/metrics', as: 'admin', own: ['content-length'] },
  { name: 'usage', method: 'GET', path: '/api/v1/usage?days=x', as: 'caller' },
  { name: 'docs-asset', method: 'GET', path: '/docs/swagger-ui.css' },
  { name: 'docs-missing', method: 'GET', path: '/docs/nope.js' },
  { name: 'head-tool', method: 'HEAD', path: '/api/v1/services/greet' },
  { name: 'put-tool', method: 'PUT', path: '/api/v1/services/greet', as: 'caller', ...json(greet) },
  { name: 'live', method: 'GET', path: '/health/live' },
  { name: 'head-live', method: 'HEAD', path: '/health/live' },
  {
    name: 'bad-request-id',
    method: 'GET',
    path: '/health/live',
    headers: { 'x-request-id': 'ok' },
  },
  {
    name: 'two-authorizations',
    path: '/api/v1/services/greet',
    ...json(greet, { authorization: ['Bearer a', 'Bearer b'] } as unknown as OutgoingHttpHeaders),
  },
  {
    name: 'preflight',
    method: 'OPTIONS',
    path: '/api/v1/services/greet',
    headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
  },
  {
    name: 'preflight-unlisted',
    method: 'OPTIONS',
    path: '/api/v1/services/greet',
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
  },
  {
    name: 'cors',
    path: '/api/v1/services/greet',
    as: 'caller',
    headers: { origin: ORIGIN, 'content-type': 'application/json' },
    body: JSON.stringify(greet),
  },
  {
    name: 'mcp-list',
    path: '/mcp',
    as: 'caller',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  },
  {
    name: 'mcp-call',
    path: '/mcp',
    as: 'caller',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'greet', arguments: { name: 'Ada' } },
    }),
  },
  { name: 'mcp-get', method: 'GET', path: '/mcp', as: 'caller' },
  { name: 'idempotent', path: GREET, as: 'caller', ...json(greet, { 'idempotency-key': 'cmp-1' }) },
  {
    name: 'idempotent-replay',
    path: GREET,
    as: 'caller',
    ...json(greet, { 'idempotency-key': 'cmp-1' }),
  },
];
/** A key limited to 1 request a second, called until refused. */
const LIMITED: Call = { name: 'limited', path: GREET, as: 'limited', ...json(greet) };

describe('Express and Fastify answer alike (e2e)', () => {
  const apps: Record<
    'express' | 'fastify',
    { t: TestApp; port: number; keys: Record<string, string> }
  > = {} as never;

  beforeAll(async () => {
    for (const adapter of ['express', 'fastify'] as const) {
      const t = await startApp({
        env: {
          HTTP_ADAPTER: adapter,
          CORS_ORIGINS: ORIGIN,
          BODY_LIMIT_BYTES: String(LIMIT),
          TOOL_BODY_LIMIT_BYTES: String(TOOL_LIMIT),
        },
      });
      const port = await listenOnLoopback(t.app);
      const keys = {
        admin: t.adminKey,
        caller: await t.createKey({ scopes: ['services:execute'], plan: 'unlimited' }),
        limited: await t.createKey({ scopes: ['services:execute'], rate_limit: 1 }),
      };
      apps[adapter] = { t, port, keys };
    }
  });

  afterAll(async () => {
    await Promise.all(Object.values(apps).map(({ t }) => t.close()));
  });

  it('runs each app on the adapter it names', () => {
    expect(apps.express.t.app.getHttpAdapter().getType()).toBe('express');
    expect(apps.fastify.t.app.getHttpAdapter().getType()).toBe('fastify');
  });

  it.each(CALLS.map((call) => [call.name, call] as const))('%s', async (_name, call) => {
    const answers: Answer[] = [];
    for (const adapter of ['express', 'fastify'] as const) {
      const { port, keys } = apps[adapter];
      answers.push(await send(port, call, call.as ? keys[call.as] : undefined));
    }
    const [onExpress, onFastify] = answers;
    if (process.env.DBG)
      console.log(
        call.name,
        onExpress.status,
        onFastify.status,
        JSON.stringify(onFastify.headers).slice(0, 300),
        onFastify.body.slice(0, 100),
      );
    expect({ status: onFastify.status, body: onFastify.body }).toEqual({
      status: onExpress.status,
      body: onExpress.body,
    });
    expect(comparable(onFastify, call.own)).toEqual(comparable(onExpress, call.own));
  });

  // Two calls a few ms apart may straddle a window's end on one app and not on the other, so each
  // app is called until it refuses (at most five calls) and the first and the refused are compared.
  it('answers and then refuses a rate-limited key alike', async () => {
    const answers: Answer[][] = [];
    for (const adapter of ['express', 'fastify'] as const) {
      const { port, keys } = apps[adapter];
      const seen = [await send(port, LIMITED, keys.limited)];
      while (seen.length < 5 && seen[seen.length - 1].status !== 429)
        seen.push(await send(port, LIMITED, keys.limited));
      answers.push([seen[0], seen[seen.length - 1]]);
    }
    const [[firstExpress, refusedExpress], [firstFastify, refusedFastify]] = answers;
    expect(firstExpress.status).toBe(200);
    expect(refusedExpress.status).toBe(429);
    for (const [onExpress, onFastify] of [
      [firstExpress, firstFastify],
      [refusedExpress, refusedFastify],
    ]) {
      expect({ status: onFastify.status, body: onFastify.body }).toEqual({
        status: onExpress.status,
        body: onExpress.body,
      });
      expect(comparable(onFastify)).toEqual(comparable(onExpress));
    }
  });

  it.each([
    ['no Host', 'GET /health/live HTTP/1.1\r\nConnection: close\r\n\r\n'],
    ['an unknown Expect', rawRequest('GET', '/health/live', [['Expect', 'magic']])],
  ])('answers a request with %s alike', async (_name, bytes) => {
    const [onExpress, onFastify] = await Promise.all(
      [apps.express.port, apps.fastify.port].map((port) => sendRaw(port, bytes)),
    );
    expect({ status: onFastify.status, body: onFastify.json }).toEqual({
      status: onExpress.status,
      body: onExpress.json,
    });
  });
});
