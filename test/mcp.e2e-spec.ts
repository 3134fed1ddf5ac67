import { Body, Module } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import type { AddressInfo, Server } from 'node:net';
import { ApiError } from '../src/errors/api-error';
import { Store } from '../src/store/store';
import { StringField } from '../src/validation/fields';
import { Tool, ToolController } from '../src/tools/tool.decorator';
import { ToolRegistry } from '../src/tools/tool.registry';
import { bearer, startApp, tempDataDir, TestApp } from './support/app';
import { CLI, runCli } from './support/cli';
import { metricValue } from './support/metrics';

const QUOTA_TEXT = /^Daily request limit exceeded \(2\/2\)\. Resets in \d+h \d+m\./;

/** A tool that fails on purpose, to see how failures reach an MCP client. */
class FailInput {
  @StringField({ description: 'How to fail: conflict or crash.', enum: ['conflict', 'crash'] })
  how: string;
}
class FailResult {}

@ToolController()
class FailController {
  @Tool({ name: 'fail', description: 'Always fails.', input: FailInput, output: FailResult })
  fail(@Body() input: FailInput): FailResult {
    if (input.how === 'conflict') throw new ApiError(409, 'Conflict: the thing is busy');
    throw new Error('boom: internal detail that must not leak');
  }
}

@Module({ controllers: [FailController] })
class FailToolModule {}

type CallResult = Awaited<ReturnType<Client['callTool']>>;

function textOf(result: CallResult): string {
  const [first] = result.content as { type: string; text: string }[];
  expect(first.type).toBe('text');
  return first.text;
}

describe('MCP (e2e)', () => {
  let t: TestApp;
  let url: URL;
  let standard: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startApp({
      env: { MCP_ALLOWED_ORIGINS: 'https://agent.example' },
      imports: [FailToolModule],
    });
    await t.app.listen(0, '127.0.0.1');
    const { port } = (t.app.getHttpServer() as unknown as Server).address() as AddressInfo;
    url = new URL(`http://127.0.0.1:${port}/mcp`);
    standard = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  afterAll(() => t.close());

  async function connect(key?: string, headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { ...(key ? bearer(key) : {}), ...headers } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function protocolError(promise: Promise<unknown>): Promise<McpError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }

  describe('tools/list', () => {
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
        });
      }
    });

    it("shows greet's input schema as validation enforces it", async () => {
      const { tools } = await (await connect(standard)).listTools();
      const greet = tools.find((tool) => tool.name === 'greet');
      expect(greet?.description).toBe('Greet a user by name.');
      expect(greet?.inputSchema).toMatchObject({
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 200 },
          shout: { type: 'boolean', default: false },
          times: { type: 'integer', minimum: 1, maximum: 100, default: 1 },
        },
      });
      expect(greet?.outputSchema).toMatchObject({
        type: 'object',
        properties: { message: { type: 'string' }, times: { type: 'integer' } },
      });
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

    it('counts tools/call in the tool metrics, like a REST call', async () => {
      const scrape = async () => (await t.http().get('/metrics')).text;
      const labels = { tool: 'greet', outcome: 'success' };
      const before = metricValue(await scrape(), 'tool_calls_total', labels);
      const client = await connect(standard);
      await client.callTool({ name: 'greet', arguments: { name: 'Metered' } });
      await client.callTool({ name: 'greet', arguments: { name: 'Metered' } });
      expect(metricValue(await scrape(), 'tool_calls_total', labels) - before).toBe(2);
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

    it('reports an unexpected failure as Internal Server Error, logged, never leaked', async () => {
      const client = await connect(standard);
      const result = await client.callTool({ name: 'fail', arguments: { how: 'crash' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('Internal Server Error');
      expect(t.logs.text()).toContain('boom: internal detail that must not leak');
      expect(t.logs.text()).not.toContain(standard);
    });
  });

  describe('quota and rate limit', () => {
    it('counts each tools/call once against the quota, and nothing else: the third call of a 2-a-day key is 402', async () => {
      // A rate limit the test cannot reach: only the quota is under test here.
      const key = await t.createKey({
        scope_template: 'standard',
        daily_limit: 2,
        rate_limit: 100,
      });
      const client = await connect(key);
      await client.listTools();
      await client.listTools();
      for (const name of ['A', 'B']) {
        const ok = await client.callTool({ name: 'greet', arguments: { name } });
        expect(ok.isError).toBeFalsy();
      }
      const refused = await client.callTool({ name: 'greet', arguments: { name: 'C' } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(QUOTA_TEXT);
      expect(textOf(refused)).toMatch(/ Retry after \d+ seconds\.$/);

      const usage = await t.http().get('/api/v1/usage').set(bearer(key));
      expect(usage.body).toMatchObject({ daily_limit: 2, used: 2, remaining: 0 });
      const rest = await t
        .http()
        .post('/api/v1/services/greet')
        .set(bearer(key))
        .send({ name: 'D' });
      expect(rest.status).toBe(402);
      expect(rest.body.detail).toMatch(QUOTA_TEXT);
    });

    it('counts a call with bad arguments, as REST does', async () => {
      const key = await t.createKey({ scope_template: 'standard', daily_limit: 1 });
      const client = await connect(key);
      const invalid = await client.callTool({ name: 'greet', arguments: { name: 'A', times: 0 } });
      expect(invalid.isError).toBe(true);
      const refused = await client.callTool({ name: 'greet', arguments: { name: 'A' } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^Daily request limit exceeded \(1\/1\)/);
    });

    it('shares one per-second budget between REST and MCP', async () => {
      const key = await t.createKey({ scope_template: 'standard', rate_limit: 1 });
      const client = await connect(key);
      const greetRest = () =>
        t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'A' });
      const greetMcp = () =>
        client
          .callTool({ name: 'greet', arguments: { name: 'A' } })
          .catch((error: unknown) => error as Error);
      // The second call of a pair must be refused unless a whole window passed between the two.
      let checked = 0;
      for (let attempt = 0; attempt < 5 && checked < 2; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 1100));
        const started = Date.now();
        const first = attempt % 2 === 0 ? await greetRest() : await greetMcp();
        const second = attempt % 2 === 0 ? await greetMcp() : await greetRest();
        if (Date.now() - started >= 1000) continue;
        checked++;
        if ('status' in first && !(first instanceof Error)) {
          expect(first.status).toBe(200);
          // Over HTTP the request is refused as a whole: HTTP 429, before any tool runs.
          expect(second).toBeInstanceOf(Error);
          expect((second as Error).message).toContain(
            '{"detail":"Rate limit exceeded: 1 requests per second. Retry after 1 seconds."}',
          );
        } else {
          expect((first as CallResult).isError).toBeFalsy();
          expect((second as { status: number }).status).toBe(429);
        }
      }
      expect(checked).toBe(2);
    });

    it('counts every JSON-RPC request against the rate limit (not the quota), the handshake and tools/list too', async () => {
      const { key, id } = await t.createKeyWithId({ scope_template: 'standard', rate_limit: 3 });
      const client = await connect(key); // initialize: 1 (its notification counts nothing)
      await client.listTools(); // 2
      await client.listTools(); // 3
      await expect(client.callTool({ name: 'greet', arguments: { name: 'A' } })).rejects.toThrow(
        /Rate limit exceeded: 3 requests per second/,
      );
      // Nothing reached the quota (read from the store: the key's own budget is spent).
      const today = new Date().toISOString().slice(0, 10);
      expect(await t.app.get(Store).getUsage(id, today)).toBe(0);
    });
  });

  describe('HTTP', () => {
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
      expect(res.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
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
  });

  describe('stdio', () => {
    const cliArgs = (key: string) => [CLI, 'mcp', '--key', key];
    const childEnv = () => ({ PATH: process.env.PATH ?? '', ...t.env });

    it('answers listTools and callTool through the SDK stdio transport, on the same quota', async () => {
      const key = await t.createKey({ scope_template: 'standard', daily_limit: 5 });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: cliArgs(key),
        cwd: tempDataDir(),
        env: childEnv(),
        stderr: 'pipe',
      });
      const client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
      await client.connect(transport);
      clients.push(client);
      const { tools } = await client.listTools();
      // The same tools, titles and annotations as over HTTP, but for this file's test-only tool.
      const overHttp = (await (await connect(standard)).listTools()).tools;
      expect(tools).toEqual(overHttp.filter((tool) => tool.name !== 'fail'));
      expect(tools.map((tool) => tool.name)).toEqual(
        t.app
          .get(ToolRegistry)
          .list()
          .map((r) => r.name)
          .filter((name) => name !== 'fail'),
      );
      const result = await client.callTool({
        name: 'greet',
        arguments: { name: 'Alice', shout: true },
      });
      expect(result.structuredContent).toEqual({ message: 'HELLO, ALICE!', times: 1 });
      const usage = await t.http().get('/api/v1/usage').set(bearer(key));
      expect(usage.body.used).toBe(1);

      // The key is checked on every call: once revoked, it stops working.
      const keyId = (await t.http().get('/api/v1/auth/me').set(bearer(key))).body.key_id;
      await t.http().delete(`/api/v1/auth/api-keys/${keyId}`).set(bearer(t.adminKey)).expect(200);
      const revoked = await client.callTool({ name: 'greet', arguments: { name: 'A' } });
      expect(revoked.isError).toBe(true);
      expect(textOf(revoked)).toBe('Invalid API key');
    }, 60_000);

    it('writes nothing but protocol on stdout, and exits when stdin closes', async () => {
      const key = await t.createKey({ scope_template: 'standard' });
      const child = spawn(process.execPath, cliArgs('placeholder').slice(0, -2), {
        cwd: tempDataDir(),
        env: { ...childEnv(), MCP_API_KEY: key },
      });
      let stdout = '';
      // Close stdin only once both answers are out, since requests are handled asynchronously.
      const answered = new Promise<void>((resolve) => {
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          if (stdout.split('\n').filter(Boolean).length >= 2) resolve();
        });
      });
      child.stderr.resume();
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'greet', arguments: { name: 'Bob' } },
      });
      await answered;
      child.stdin.end();
      expect(await exited).toBe(0);
      const lines = stdout.split('\n').filter(Boolean);
      const messages = lines.map((line) => JSON.parse(line));
      expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
      expect(messages.map((m) => m.id)).toEqual([1, 2]);
      expect(messages[1].result.structuredContent).toEqual({ message: 'Hello, Bob!', times: 1 });
    }, 60_000);

    it('refuses to start without a usable key, saying why on stderr', async () => {
      const env = childEnv();
      const missing = await runCli(['mcp'], env);
      expect(missing.code).toBe(2);
      expect(missing.stdout).toBe('');
      expect(missing.stderr).toContain('An API key is required: --key or MCP_API_KEY');

      const invalid = await runCli(['mcp', '--key', `sk_${'0'.repeat(64)}`], env);
      expect(invalid.code).toBe(1);
      expect(invalid.stdout).toBe('');
      expect(invalid.stderr).toContain('Invalid API key');

      const reader = await t.createKey({ scope_template: 'read_only' });
      const readOnly = await runCli(['mcp', '--key', reader], env);
      expect(readOnly.code).toBe(1);
      expect(readOnly.stdout).toBe('');
      expect(readOnly.stderr).toContain('Insufficient permissions for this operation.');
    }, 60_000);
  });
});
