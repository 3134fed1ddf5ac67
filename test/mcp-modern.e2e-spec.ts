import { bearer, TestApp } from './support/app';
import { startMcpApp } from './support/mcp';

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

  beforeAll(async () => {
    ({ t, standard } = await startMcpApp());
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

  it.each(['get', 'delete'] as const)('answers %s /mcp 405 with Allow: POST', async (method) => {
    const res = await t.http()[method]('/mcp').set(bearer(standard));
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body).toEqual({ detail: 'Method Not Allowed' });
  });
});
