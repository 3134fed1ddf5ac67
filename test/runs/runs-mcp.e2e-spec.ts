import { CLI_ARGS, CLI_TIMEOUT_MS } from '../support/cli';
import { bearer, tempDataDir, TestApp } from '../support/app';
import { startMcpApp } from '../support/mcp';
import { usingSharedRedis } from '../support/redis';
import { AnyClient, CLIENT_KINDS, connectHttp, connectStdio, textOf } from '../support/mcp-clients';

const RUNS = '/api/v1/runs';

/** `_meta["io.tis/quota"]` of a result: what the call cost, and its run's figures. */
function quotaOf(result: unknown): { cost?: number; run?: unknown } | undefined {
  const meta = (result as { _meta?: Record<string, unknown> })._meta;
  return meta?.['io.tis/quota'] as { cost?: number; run?: unknown } | undefined;
}

/**
 * A run's token over MCP, as an agent's client holds it: with the official clients of both eras
 * over HTTP (`@modelcontextprotocol/client` 2.x negotiating 2026-07-28 or speaking 2025, and the
 * 1.x SDK's client) and over stdio (the CLI as a child process). Each call counts against the run,
 * its result says where the run stands (`_meta["io.tis/quota"].run`), the budget spent is an
 * `isError` result with the run's text, and an ended run's token is refused.
 */
describe('runs over MCP (e2e)', () => {
  let t: TestApp;
  let url: URL;
  const open: AnyClient[] = [];

  beforeAll(async () => {
    ({ t, url } = await startMcpApp());
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((client) => client.close().catch(() => undefined)));
  });
  afterAll(() => t.close());

  /** A parent key of its own and a run of budget 2. */
  const newRun = async () => {
    const parent = await t.createKeyWithId({ scope_template: 'standard', rate_limit: 1000 });
    const res = await t.http().post(RUNS).set(bearer(parent.key)).send({ budget: 2 }).expect(201);
    return { parent, run: res.body as { id: string; token: string } };
  };
  const runOf = async (id: string) =>
    (await t.http().get(`${RUNS}/${id}`).set(bearer(t.adminKey)).expect(200)).body as Record<
      string,
      unknown
    >;
  const usedBy = async (keyId: string) =>
    (await t.http().get(`/api/v1/auth/api-keys/${keyId}/usage`).set(bearer(t.adminKey)).expect(200))
      .body.used as number;

  /** Two calls within the budget, the third refused with the run's text; counted as over REST. */
  async function spend(client: AnyClient, runId: string, parentId: string): Promise<void> {
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('greet');
    const first = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toEqual({ message: 'Hello, Ada!', times: 1 });
    expect(quotaOf(first)).toMatchObject({
      cost: 1,
      run: { budget: 2, spent: 1, remaining: 1 },
    });
    const second = await client.callTool({ name: 'greet', arguments: { name: 'Bo' } });
    expect(quotaOf(second)?.run).toEqual({ budget: 2, spent: 2, remaining: 0 });
    const refused = await client.callTool({ name: 'greet', arguments: { name: 'Cy' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('Run budget exhausted (2/2).');
    expect(await runOf(runId)).toMatchObject({
      spent: 2,
      remaining: 0,
      spent_by_tool: { greet: 2 },
    });
    expect(await usedBy(parentId)).toBe(2);
  }

  it.each(CLIENT_KINDS)(
    '%s over HTTP: counted calls, the run in _meta, the budget spent, then refused once deleted',
    async (kind) => {
      const { parent, run } = await newRun();
      const client = await connectHttp(kind, url, run.token);
      open.push(client);
      if (kind === 'modern') expect(client.version).toBe('2026-07-28');
      await spend(client, run.id, parent.id);

      await t.http().delete(`${RUNS}/${run.id}`).set(bearer(parent.key)).expect(200);
      // The open session's next request is refused (401 `Run has ended.`), and so is a new one.
      await expect(client.callTool({ name: 'greet', arguments: { name: 'Di' } })).rejects.toThrow(
        'Run has ended.',
      );
      // The modern client's opening probe reports the 401 by its status.
      await expect(connectHttp(kind, url, run.token)).rejects.toThrow(
        kind === 'modern' ? /HTTP 401/ : 'Run has ended.',
      );
      const refused = await t
        .http()
        .post('/mcp')
        .set(bearer(run.token))
        .set('Content-Type', 'application/json')
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
        .expect(401);
      expect(refused.body).toEqual({ detail: 'Run has ended.' });
      expect(await usedBy(parent.id)).toBe(2);
    },
  );

  // A child process per client: once, on SQLite (as test/mcp/mcp-eras.e2e-spec.ts); the store
  // under the stdio server is the HTTP tests' on every backend.
  (usingSharedRedis() ? it.skip : it).each(['modern', 'v1'] as const)(
    '%s over stdio (the CLI as a child process): the same, and an isError result once deleted',
    async (kind) => {
      const { parent, run } = await newRun();
      const client = await connectStdio(kind, {
        command: process.execPath,
        args: [...CLI_ARGS, 'mcp'],
        env: { PATH: process.env.PATH ?? '', ...t.env, MCP_API_KEY: run.token },
        cwd: tempDataDir(),
      });
      open.push(client);
      await spend(client, run.id, parent.id);

      await t.http().delete(`${RUNS}/${run.id}`).set(bearer(parent.key)).expect(200);
      const refused = await client.callTool({ name: 'greet', arguments: { name: 'Di' } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe('Run has ended.');
      expect(await usedBy(parent.id)).toBe(2);
    },
    CLI_TIMEOUT_MS,
  );
});
