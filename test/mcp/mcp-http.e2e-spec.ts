import { bearer, TestApp } from '../support/app';
import { McpClients, startMcpApp } from '../support/mcp';

describe('MCP over HTTP (e2e)', () => {
  let t: TestApp;
  let url: URL;
  let standard: string;
  const clients = new McpClients();
  const connect = (key?: string, headers?: Record<string, string>) =>
    clients.connect(url, key, headers);

  beforeAll(async () => {
    ({ t, url, standard } = await startMcpApp());
  });
  afterEach(() => clients.closeAll());
  afterAll(() => t.close());

  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'curl', version: '1' },
    },
  };
  const post = () =>
    t
      .http()
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .set('Content-Type', 'application/json');

  it('answers initialize with JSON, no session', async () => {
    const res = await post().set(bearer(standard)).send(initialize);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(res.headers['x-request-id']).toBeDefined();
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { capabilities: { tools: {} }, serverInfo: { name: 'tool-invocation-service' } },
    });
  });

  it('refuses a client without a key: connect fails with 401', async () => {
    await expect(connect()).rejects.toMatchObject({ code: 401 });
    const res = await post().send(initialize);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Not authenticated' });
    expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  });

  it('refuses an invalid key with 401 invalid_token', async () => {
    await expect(connect(`sk_${'0'.repeat(64)}`)).rejects.toMatchObject({ code: 401 });
    const res = await post()
      .set(bearer(`sk_${'0'.repeat(64)}`))
      .send(initialize);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid API key' });
    expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  });

  it('keeps REST challenges plain', async () => {
    const res = await t.http().post('/api/v1/services/greet').send({ name: 'A' });
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it('refuses a read-only key: connect fails with 403 insufficient_scope', async () => {
    const reader = await t.createKey({ scope_template: 'read_only' });
    await expect(connect(reader)).rejects.toMatchObject({ code: 403 });
    const res = await post().set(bearer(reader)).send(initialize);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Insufficient permissions for this operation.' });
    expect(res.headers['www-authenticate']).toBe(
      'Bearer error="insufficient_scope", scope="services:execute"',
    );
  });

  it.each(['get', 'delete'] as const)('answers %s /mcp with 405 and Allow: POST', async (m) => {
    const res = await t.http()[m]('/mcp').set(bearer(standard));
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: 'Method Not Allowed' });
    expect(res.headers.allow).toBe('POST');
  });

  it('refuses a browser Origin that is not allowed, before authentication', async () => {
    for (const origin of ['https://evil.example', 'null']) {
      const res = await post().set('Origin', origin).set(bearer(standard)).send(initialize);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Origin not allowed for MCP requests.' });
    }
    const anonymous = await post().set('Origin', 'https://evil.example').send(initialize);
    expect(anonymous.status).toBe(403);
    await expect(connect(standard, { Origin: 'https://evil.example' })).rejects.toMatchObject({
      code: 403,
    });
  });

  it('accepts an allowed Origin, in any case', async () => {
    const res = await post()
      .set('Origin', 'https://Agent.example')
      .set(bearer(standard))
      .send(initialize);
    expect(res.status).toBe(200);
    const client = await connect(standard, { Origin: 'https://agent.example' });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('answers a body that is not JSON-RPC with a JSON-RPC error, not a crash', async () => {
    const res = await post().set(bearer(standard)).send({ hello: 'world' });
    expect(res.status).toBe(400);
    // Valid JSON that is no JSON-RPC message: an invalid request (the SDK 2.x entry's answer).
    expect(res.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    const empty = await t
      .http()
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .set(bearer(standard));
    expect(empty.status).toBe(415);
  });
  it('answers every malformed tools/call with -32602, never an internal error', async () => {
    const call = (params: unknown) =>
      post().set(bearer(standard)).send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params });
    for (const params of [
      { name: 5 },
      {},
      { name: 'greet', arguments: [1] },
      { name: 'greet', arguments: 'x' },
    ]) {
      const res = await call(params);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: 7, error: { code: -32602 } });
    }
    const poisoned = await call({
      name: 'greet',
      arguments: JSON.parse('{"name":"A","__proto__":{"x":1}}'),
    });
    expect(poisoned.body.result.isError).toBe(true);
    expect(JSON.parse(poisoned.body.result.content[0].text as string)).toEqual([
      {
        loc: ['body', '__proto__'],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
      },
    ]);
  });

  it('answers a tools/list whose cursor is not a string with -32602, never an internal error (fuzz)', async () => {
    const cursors = [true, 5, null, {}, ['a']];
    const answers = [];
    for (const cursor of cursors) {
      const res = await post()
        .set(bearer(standard))
        .send({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: { cursor } });
      answers.push({ cursor, status: res.status, body: res.body as unknown });
    }
    expect(answers).toEqual(
      cursors.map((cursor) => ({
        cursor,
        status: 200,
        body: {
          jsonrpc: '2.0',
          id: 8,
          error: { code: -32602, message: 'Invalid tools/list request: a cursor is a string' },
        },
      })),
    );
  });
});
