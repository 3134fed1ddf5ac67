import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn } from 'node:child_process';
import { ToolRegistry } from '../../src/tools/tool.registry';
import { bearer, tempDataDir, TestApp } from '../support/app';
import { CLI_ARGS, runCli, CLI_TIMEOUT_MS } from '../support/cli';
import { McpClients, startMcpApp, textOf } from '../support/mcp';
import { initializeRequest } from '../support/mcp-messages';

describe('MCP over stdio (e2e)', () => {
  let t: TestApp;
  const clients = new McpClients();

  let url: URL;
  let standard: string;

  beforeAll(async () => {
    ({ t, url, standard } = await startMcpApp());
  });
  afterEach(() => clients.closeAll());
  afterAll(() => t.close());

  const cliArgs = (key: string) => [...CLI_ARGS, 'mcp', '--key', key];
  const childEnv = () => ({ PATH: process.env.PATH ?? '', ...t.env });

  it(
    'answers listTools and callTool through the SDK stdio transport, on the same quota',
    async () => {
      const key = await t.createKey({ scope_template: 'standard', daily_limit: 5 });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: cliArgs(key),
        cwd: tempDataDir(),
        env: childEnv(),
        stderr: 'pipe',
      });
      const client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
      clients.track(client); // closed after the test, whatever happens
      await client.connect(transport);
      const { tools } = await client.listTools();
      // The same tools, titles and annotations as over HTTP, but for the test-only fail tool
      // (support/mcp.ts).
      const overHttp = (await (await clients.connect(url, standard)).listTools()).tools;
      expect(tools).toEqual(overHttp.filter((tool) => tool.name !== 'fail'));
      expect(tools.map((tool) => tool.name)).toEqual(
        t.app
          .get(ToolRegistry)
          .list()
          .map((r) => r.name)
          .filter((name) => name !== 'fail')
          .sort(),
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
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'writes nothing but protocol on stdout, and exits when stdin closes',
    async () => {
      const key = await t.createKey({ scope_template: 'standard' });
      const child = spawn(process.execPath, cliArgs('placeholder').slice(0, -2), {
        cwd: tempDataDir(),
        env: { ...childEnv(), MCP_API_KEY: key },
      });
      try {
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
        send(initializeRequest());
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
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'refuses to start without a usable key, saying why on stderr',
    async () => {
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
    },
    CLI_TIMEOUT_MS,
  );
});
