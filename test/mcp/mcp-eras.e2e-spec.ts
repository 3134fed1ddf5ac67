import { CLI_ARGS, CLI_TIMEOUT_MS } from '../support/cli';
import { bearer, TestApp, tempDataDir } from '../support/app';
import { startMcpApp } from '../support/mcp';
import { usingSharedRedis } from '../support/redis';
import { AnyClient, CLIENT_KINDS, connectHttp, connectStdio, textOf } from '../support/mcp-clients';

/** What each client kind checks, on a key of its own (daily limit 3: two calls, a replay, a refusal). */
async function exercise(client: AnyClient, used: () => Promise<number>, idem: string) {
  if (client.kind === 'modern') expect(client.version).toBe('2026-07-28');
  if (client.kind === 'legacy') expect(client.version).toMatch(/^2025-/);
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  expect(names).toEqual([...names].sort());
  expect(names).toContain('greet');
  const ok = await client.callTool({
    name: 'greet',
    arguments: { name: 'Ada', shout: true },
    _meta: { 'io.tis/idempotency-key': idem },
  });
  expect(ok.structuredContent).toEqual({ message: 'HELLO, ADA!', times: 1 });
  const replay = await client.callTool({
    name: 'greet',
    arguments: { name: 'Ada', shout: true },
    _meta: { 'io.tis/idempotency-key': idem },
  });
  expect(replay.structuredContent).toEqual(ok.structuredContent);
  expect(await used()).toBe(1);
  const bad = await client.callTool({ name: 'greet', arguments: { name: 'Ada', times: 0 } });
  expect(bad.isError).toBe(true);
  expect(JSON.parse(textOf(bad))).toEqual([
    {
      loc: ['body', 'times'],
      msg: 'Input should be greater than or equal to 1',
      type: 'greater_than_equal',
    },
  ]);
  const unknown = await client.callTool({ name: 'nope', arguments: {} }).then(
    () => undefined,
    (error: Error & { code?: number }) => error,
  );
  expect(unknown?.code).toBe(-32602);
  // The message carries the code once, if at all: the client adds its own prefix.
  expect(unknown?.message).toMatch(/^(MCP error -32602: )?Not Found: no tool named 'nope'$/);
  await client.callTool({ name: 'greet', arguments: { name: 'B' } });
  const refused = await client.callTool({ name: 'greet', arguments: { name: 'C' } });
  expect(refused.isError).toBe(true);
  expect(textOf(refused)).toMatch(/^Daily request limit exceeded \(3\/3\)\. Resets in \d+h \d+m\./);
  expect(await used()).toBe(3);
}

/**
 * Both eras of MCP with the official clients, over HTTP and stdio: `@modelcontextprotocol/client`
 * 2.x negotiating 2026-07-28, the same client speaking 2025, and the 1.x SDK's client (2025).
 */
describe('MCP with the official clients of both eras (e2e)', () => {
  let t: TestApp;
  let url: URL;
  const open: AnyClient[] = [];

  beforeAll(async () => {
    ({ t, url } = await startMcpApp());
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((client) => client.close()));
  });
  afterAll(() => t.close());

  const keyed = async () => {
    const key = await t.createKey({ scope_template: 'standard', daily_limit: 3, rate_limit: 100 });
    const used = async () =>
      (await t.http().get('/api/v1/usage').set(bearer(key))).body.used as number;
    return { key, used };
  };

  it.each(CLIENT_KINDS)(
    '%s over HTTP: list, call, replay, bad argument, unknown tool, quota',
    async (kind) => {
      const { key, used } = await keyed();
      const client = await connectHttp(kind, url, key);
      open.push(client);
      await exercise(client, used, `http-${kind}`);
    },
  );

  it.each(CLIENT_KINDS)('%s over HTTP: refuses a read-only key and no key', async (kind) => {
    const reader = await t.createKey({ scope_template: 'read_only' });
    await expect(connectHttp(kind, url, reader)).rejects.toThrow();
    await expect(connectHttp(kind, url)).rejects.toThrow();
  });

  // A child process per client (the modern client's probe, two): once, on SQLite; the store under
  // the stdio server is the HTTP tests' on every backend.
  (usingSharedRedis() ? it.skip : it).each(CLIENT_KINDS)(
    '%s over stdio (the CLI as a child process): the same',
    async (kind) => {
      const { key, used } = await keyed();
      const client = await connectStdio(kind, {
        command: process.execPath,
        args: [...CLI_ARGS, 'mcp', '--key', key],
        env: { PATH: process.env.PATH ?? '', ...t.env },
        cwd: tempDataDir(),
      });
      open.push(client);
      await exercise(client, used, `stdio-${kind}`);
    },
    CLI_TIMEOUT_MS,
  );
});
