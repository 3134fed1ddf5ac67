import { Clock } from '../../src/kernel/common/clock';
import { bearer, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';
import { startMcpApp } from '../support/mcp';

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** MCP 2026-07-28 by raw HTTP: what the revision's transport and versioning pages ask. */
describe('MCP 2026-07-28 by raw HTTP (e2e)', () => {
  let t: TestApp;
  let standard: string;
  // Still: a key's bucket refills only when the test says, however slow the machine.
  const clock = new FakeClock(new Date());

  beforeAll(async () => {
    ({ t, standard } = await startMcpApp({
      configure: (b) => b.overrideProvider(Clock).useValue(clock),
    }));
  });
  afterAll(() => t.close());

  const post = (body: object, headers: Record<string, string>) => {
    let req = t
      .http()
      .post('/mcp')
      .set(bearer(standard))
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json, text/event-stream');
    for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
    return req.send(body);
  };
  const headers = (method: string, name?: string) => ({
    'MCP-Protocol-Version': MODERN,
    'Mcp-Method': method,
    ...(name === undefined ? {} : { 'Mcp-Name': name }),
  });
  const request = (method: string, params: object = {}, id: number = 1) => ({
    jsonrpc: '2.0',
    id,
    method,
    params: { ...params, _meta: ENVELOPE },
  });

  it('answers server/discover with the revisions it serves and its capabilities', async () => {
    const res = await post(request('server/discover'), headers('server/discover'));
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      supportedVersions: [MODERN],
      capabilities: { tools: {} },
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'tool-invocation-service' } },
    });
  });

  it('lists the tools by name, with resultType, ttlMs and cacheScope private', async () => {
    const res = await post(request('tools/list'), headers('tools/list'));
    expect(res.status).toBe(200);
    const { tools, ...rest } = res.body.result as { tools: { name: string }[] };
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual([...names].sort());
    expect(rest).toEqual({
      resultType: 'complete',
      ttlMs: 60000,
      cacheScope: 'private',
      _meta: {
        'io.modelcontextprotocol/serverInfo': {
          name: 'tool-invocation-service',
          version: expect.any(String),
        },
      },
    });
  });

  it('calls a tool, the result complete', async () => {
    const res = await post(
      request('tools/call', { name: 'greet', arguments: { name: 'Ada' } }),
      headers('tools/call', 'greet'),
    );
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      structuredContent: { message: 'Hello, Ada!', times: 1 },
      resultType: 'complete',
    });
  });

  it.each([
    ['Mcp-Method', { ...headers('tools/list', 'greet') }],
    ['Mcp-Name', { ...headers('tools/call', 'other') }],
    [
      'MCP-Protocol-Version',
      { ...headers('tools/call', 'greet'), 'MCP-Protocol-Version': '2025-11-25' },
    ],
    ['a missing Mcp-Name', { ...headers('tools/call') }],
  ])('refuses a header that disagrees with the body (%s): 400, -32020', async (_, sent) => {
    const res = await post(
      request('tools/call', { name: 'greet', arguments: { name: 'A' } }),
      sent,
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32020 } });
    expect(res.body.error.message).not.toMatch(/MCP error/);
  });

  it('refuses an unsupported version: 400, -32022, naming the versions it supports', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/list',
      params: {
        _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
      },
    };
    const res = await post(body, {
      ...headers('tools/list'),
      'MCP-Protocol-Version': '2099-01-01',
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      id: 4,
      error: { code: -32022, data: { supported: [MODERN], requested: '2099-01-01' } },
    });
  });

  it('answers an unknown tool -32602 with a message the client prefixes only once', async () => {
    const res = await post(
      request('tools/call', { name: 'nope', arguments: {} }),
      headers('tools/call', 'nope'),
    );
    expect(res.status).toBe(200);
    expect(res.body.error).toEqual({
      code: -32602,
      message: "Not Found: no tool named 'nope'",
      data: { detail: 'Not Found' },
    });
  });

  it('accepts a notification with 202 and no body', async () => {
    const res = await post(
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 9, _meta: ENVELOPE },
      },
      headers('notifications/cancelled'),
    );
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });

  describe('the rate limit and the _meta cap, as in 2025 (issue 27)', () => {
    const as = (key: string, body: object, method: string, name?: string) =>
      t
        .http()
        .post('/mcp')
        .set(bearer(key))
        .set('Content-Type', 'application/json')
        .set('Accept', 'application/json, text/event-stream')
        .set(headers(method, name))
        .send(body);
    const cancelled = { jsonrpc: '2.0', method: 'notifications/cancelled' };

    it('counts every message, server/discover and notifications too', async () => {
      const key = await t.createKey({ scope_template: 'standard', rate_limit: 3 });
      const discover = await as(key, request('server/discover'), 'server/discover');
      expect([discover.status, discover.headers['x-ratelimit-remaining']]).toEqual([200, '2']);
      const note = await as(
        key,
        { ...cancelled, params: { requestId: 1, _meta: ENVELOPE } },
        'notifications/cancelled',
      );
      expect([note.status, note.headers['x-ratelimit-remaining']]).toEqual([202, '1']);
      const list = await as(key, request('tools/list', {}, 2), 'tools/list');
      expect([list.status, list.headers['x-ratelimit-remaining']]).toEqual([200, '0']);
      const over = await as(key, request('tools/list', {}, 3), 'tools/list');
      expect(over.status).toBe(429);
    });

    it("refuses a 5/s key's batch of 10 notifications with 429, running none", async () => {
      const key = await t.createKey({ scope_template: 'standard', rate_limit: 5 });
      const notes = Array.from({ length: 10 }, (_, i) => ({
        ...cancelled,
        params: { requestId: i, _meta: ENVELOPE },
      }));
      const res = await as(key, notes, 'notifications/cancelled');
      expect(res.status).toBe(429);
      expect(res.body).toEqual({
        detail: expect.stringMatching(/^Rate limit exceeded: 5 requests per second\./),
      });
      // Nothing was counted: the whole budget is still there.
      const list = await as(key, request('tools/list'), 'tools/list');
      expect(list.headers['x-ratelimit-remaining']).toBe('4');
    });

    it('refuses a _meta of more than 64 entries, the envelope among them: 400, -32602, counted, nothing runs', async () => {
      const key = await t.createKey({ scope_template: 'standard', rate_limit: 5, daily_limit: 10 });
      // The envelope's three entries and 62 of the client's own: 65.
      const wide = (n: number) => ({
        ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])),
        ...ENVELOPE,
      });
      const call = (meta: object) => ({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'greet', arguments: { name: 'A' }, _meta: meta },
      });
      const refused = await as(key, call(wide(62)), 'tools/call', 'greet');
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
      const note = await as(
        key,
        { ...cancelled, params: { requestId: 1, _meta: wide(62) } },
        'notifications/cancelled',
      );
      expect(note.status).toBe(400);
      expect(note.body).toMatchObject({ id: null, error: { code: -32602 } });
      const fine = await as(key, call(wide(61)), 'tools/call', 'greet');
      expect(fine.status).toBe(200);
      expect(fine.body.result.structuredContent).toEqual({ message: 'Hello, A!', times: 1 });
      expect(fine.headers['x-ratelimit-remaining']).toBe('2');
      const usage = await t.http().get('/api/v1/usage').set(bearer(key));
      expect(usage.body).toMatchObject({ used: 1 });
    });
  });

  it.each(['get', 'delete'] as const)('answers %s /mcp 405 with Allow: POST', async (method) => {
    const res = await t.http()[method]('/mcp').set(bearer(standard));
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body).toEqual({ detail: 'Method Not Allowed' });
  });
});
