import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ToolRegistry } from '../../src/tools/tool.registry';
import { bearer, TestApp } from '../support/app';
import { GREET_INPUT_SCHEMA, GREET_OUTPUT_SCHEMA } from '../support/greet-schema';
import { metricValue } from '../support/metrics';
import { McpClients, protocolError, startMcpApp, textOf } from '../support/mcp';
import { initializeRequest } from '../support/mcp-messages';

/**
 * MCP over HTTP with the official client and by hand: the transport (initialize, authentication,
 * methods, Origin, malformed bodies), then tools/list and tools/call, on one app.
 */
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

  describe('transport', () => {
    const initialize = initializeRequest(1);
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

  describe('tools/list', () => {
    it('lists every registered tool with its description and JSON Schemas', async () => {
      const client = await connect(standard);
      const { tools } = await client.listTools();
      const registry = t.app.get(ToolRegistry).list();
      expect(tools.map((tool) => tool.name).sort()).toEqual(registry.map((r) => r.name).sort());
      for (const entry of registry) {
        const listed = tools.find((tool) => tool.name === entry.name);
        expect(listed).toEqual({
          name: entry.name,
          title: expect.any(String),
          description: entry.description,
          inputSchema: entry.inputSchema,
          outputSchema: entry.outputSchema,
          annotations: expect.objectContaining({ title: listed?.title }),
          _meta: { 'io.tis/cost': entry.runtime.cost },
        });
      }
    });

    it('gives every tool a title and the annotations of the contract', async () => {
      const { tools } = await (await connect(standard)).listTools();
      const hints = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
      const reading = { readOnlyHint: true, destructiveHint: true, idempotentHint: false };
      const writing = { readOnlyHint: false, destructiveHint: true, idempotentHint: true };
      expect(hints).toMatchObject({
        greet: { title: 'Greet', ...reading, openWorldHint: false },
        config_show: { title: 'Show configuration', ...reading, openWorldHint: false },
        config_get: { title: 'Get a configuration value', ...reading, openWorldHint: false },
        config_set: { title: 'Set a configuration value', ...writing, openWorldHint: false },
        doctor: { title: 'Run health checks', ...writing, openWorldHint: false },
        // A tool that states none gets the MCP specification's defaults and a title from its name.
        fail: {
          title: 'Fail',
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: false,
          openWorldHint: true,
        },
      });
      for (const tool of tools) expect(tool.title).toBe(tool.annotations?.title);
    });

    it("shows greet's input schema as validation enforces it", async () => {
      const { tools } = await (await connect(standard)).listTools();
      const greet = tools.find((tool) => tool.name === 'greet');
      expect(greet?.description).toBe('Greet a user by name.');
      expect(greet?.inputSchema).toMatchObject(GREET_INPUT_SCHEMA);
      expect(greet?.outputSchema).toMatchObject(GREET_OUTPUT_SCHEMA);
    });
  });

  describe('tools/call', () => {
    it('greets: structuredContent is the REST body, with a text rendering of it', async () => {
      const client = await connect(standard);
      const result = await client.callTool({
        name: 'greet',
        arguments: { name: 'Alice', shout: true },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ message: 'HELLO, ALICE!', times: 1 });
      expect(JSON.parse(textOf(result))).toEqual({ message: 'HELLO, ALICE!', times: 1 });
      const rest = await t
        .http()
        .post('/api/v1/services/greet')
        .set(bearer(standard))
        .send({ name: 'Alice', shout: true });
      expect(result.structuredContent).toEqual(rest.body);
    });

    it('sets a configuration value and reads it back, and runs doctor', async () => {
      const client = await connect(standard);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['greet', 'config_show', 'config_get', 'config_set', 'doctor']),
      );
      const set = await client.callTool({
        name: 'config_set',
        arguments: { key: 'logging.verbose', value: 'yes' },
      });
      expect(set.structuredContent).toEqual({ key: 'logging.verbose', coerced_value: true });
      const got = await client.callTool({
        name: 'config_get',
        arguments: { key: 'logging.verbose' },
      });
      expect(got.structuredContent).toEqual({ key: 'logging.verbose', value: true });
      const rest = await t
        .http()
        .post('/api/v1/services/config_get')
        .set(bearer(standard))
        .send({ key: 'logging.verbose' });
      expect(rest.body).toEqual({ key: 'logging.verbose', value: true });
      await client.callTool({
        name: 'config_set',
        arguments: { key: 'logging.verbose', value: 'no' },
      });

      const bad = await client.callTool({
        name: 'config_set',
        arguments: { key: 'server.port', value: '70000' },
      });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toContain('server.port expects an integer from 1 to 65535');

      const doctor = await client.callTool({ name: 'doctor', arguments: {} });
      expect(doctor.isError).toBeFalsy();
      const report = doctor.structuredContent as {
        checks: { name: string }[];
        has_failures: boolean;
      };
      expect(report.checks.map((c) => c.name)).toContain('store');
      expect(typeof report.has_failures).toBe('boolean');
    });

    it('counts tools/call in the tool metrics and their durations, like a REST call', async () => {
      const scrape = async () => (await t.http().get('/metrics')).text;
      const labels = { tool: 'greet', outcome: 'success' };
      const counts = async () => {
        const text = await scrape();
        return [
          metricValue(text, 'tool_calls_total', labels),
          metricValue(text, 'tool_call_duration_seconds_count', labels) ?? 0,
        ];
      };
      const before = await counts();
      const client = await connect(standard);
      await client.callTool({ name: 'greet', arguments: { name: 'Metered' } });
      await client.callTool({ name: 'greet', arguments: { name: 'Metered' } });
      const after = await counts();
      expect([after[0] - before[0], after[1] - before[1]]).toEqual([2, 2]);
    });

    it('times every MCP message by its method, a method of no MCP revision as _OTHER', async () => {
      const scrape = async () => (await t.http().get('/metrics')).text;
      const count = (text: string, method: string) =>
        metricValue(text, 'mcp_server_operation_duration_seconds_count', { method });
      const methods = ['initialize', 'tools/list', 'tools/call', 'ping', '_OTHER'];
      const before = await scrape();
      const rpc = (method: string, params?: object) =>
        t
          .http()
          .post('/mcp')
          .set(bearer(standard))
          .set('Accept', 'application/json, text/event-stream')
          .set('Content-Type', 'application/json')
          .send({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) });
      await t
        .http()
        .post('/mcp')
        .set(bearer(standard))
        .set('Accept', 'application/json, text/event-stream')
        .send(initializeRequest());
      await rpc('tools/list');
      await rpc('tools/call', { name: 'greet', arguments: { name: 'Timed' } });
      await rpc('ping');
      const made = await rpc('made/up-method-of-a-client');
      expect(made.body.error.code).toBe(-32601);
      const after = await scrape();
      expect(methods.map((m) => count(after, m) - count(before, m))).toEqual([1, 1, 1, 1, 1]);
      expect(after).not.toContain('made/up-method');
    });

    it('treats missing arguments as {} like an empty REST body', async () => {
      const result = await (await connect(standard)).callTool({ name: 'greet' });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(JSON.parse(textOf(result))).toEqual([
        { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
      ]);
    });

    it.each([
      [
        { name: 'A', times: 0 },
        {
          loc: ['body', 'times'],
          msg: 'Input should be greater than or equal to 1',
          type: 'greater_than_equal',
        },
      ],
      [
        { name: 'A', colour: 'red' },
        { loc: ['body', 'colour'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      ],
      [
        { name: 'A', shout: 'true' },
        { loc: ['body', 'shout'], msg: 'Input should be a valid boolean', type: 'bool_type' },
      ],
    ])(
      'answers %j with an isError result holding the REST 400 detail, for the model to correct',
      async (args, issue) => {
        const client = await connect(standard);
        const result = await client.callTool({ name: 'greet', arguments: args });
        expect(result.isError).toBe(true);
        expect(result.structuredContent).toBeUndefined();
        expect(JSON.parse(textOf(result))).toEqual([issue]);
        const rest = await t.http().post('/api/v1/services/greet').set(bearer(standard)).send(args);
        expect(rest.status).toBe(400);
        expect({ detail: JSON.parse(textOf(result)) as unknown }).toEqual(rest.body);
      },
    );

    it('answers an unknown tool with -32602', async () => {
      const client = await connect(standard);
      const error = await protocolError(client.callTool({ name: 'nope', arguments: {} }));
      expect(error.code).toBe(ErrorCode.InvalidParams);
      expect(error.message).toContain("Not Found: no tool named 'nope'");
    });

    it("reports a tool's own failure as isError with the REST detail", async () => {
      const client = await connect(standard);
      const result = await client.callTool({ name: 'fail', arguments: { how: 'conflict' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('Conflict: the thing is busy');
      expect(result.structuredContent).toBeUndefined();
    });

    it('reports an unexpected failure as Internal Server Error, logged with its request, never leaked', async () => {
      const client = await connect(standard);
      const result = await client.callTool({ name: 'fail', arguments: { how: 'crash' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('Internal Server Error');
      expect(t.logs.text()).toContain('boom: internal detail that must not leak');
      expect(t.logs.text()).not.toContain(standard);
      // The line names the /mcp request and the key, as REST's error lines do.
      const line = t.logs
        .records()
        .find((r) => String(r.msg).startsWith('Unhandled error on MCP tool fail'));
      expect(line).toMatchObject({
        req: { id: expect.any(String), method: 'POST', url: '/mcp' },
        key_id: expect.stringMatching(/^key_[0-9a-f]{16}$/),
      });
    });
  });
});
