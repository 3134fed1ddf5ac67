import { Client as Client2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { bearer, startApp, TestApp, listenOnLoopback } from '../support/app';
import { probe, RuntimeToolsModule } from '../support/runtime-tools.module';
import { startStdioMcp } from '../support/stdio-mcp';

const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';

/** The 2026-07-28 envelope, with the tasks extension declared or not. */
const envelope = (tasks: boolean) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS]: {} } } : {},
});

async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('condition not met in time');
}

/** The JSON-RPC messages of an SSE answer, in order. */
function events(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

/**
 * What only MCP has of the runtime: progress notifications, the 2025 cancel notification, stdio,
 * and the tasks extension. What REST and MCP share is written once over both (runtime.e2e-spec.ts).
 */
describe('A runtime for real tools, over MCP (e2e)', () => {
  let t: TestApp;
  let key: string;
  let port: number;

  beforeAll(async () => {
    t = await startApp({ imports: [RuntimeToolsModule], env: { MCP_TASK_AFTER_MS: '700' } });
    key = await t.createKey({ plan: 'unlimited', scope_template: 'standard' });
    port = await listenOnLoopback(t.app);
  });
  afterAll(() => t.close());
  beforeEach(() => probe.reset());

  const url = () => new URL(`http://127.0.0.1:${port}/mcp`);
  /** A raw 2026-07-28 request. */
  const modern = (
    method: string,
    params: object,
    options: { tasks?: boolean; name?: string } = {},
  ) =>
    t
      .http()
      .post('/mcp')
      .set(bearer(key))
      .set('Accept', 'application/json, text/event-stream')
      .set('MCP-Protocol-Version', MODERN)
      .set('Mcp-Method', method)
      .set(options.name === undefined ? {} : { 'Mcp-Name': options.name })
      .send({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: { ...params, _meta: { ...envelope(options.tasks ?? false) } },
      });
  const callModern = (name: string, args: object, tasks = false) =>
    modern('tools/call', { name, arguments: args }, { tasks, name });
  const legacy = (body: object) =>
    t
      .http()
      .post('/mcp')
      .set(bearer(key))
      .set('Accept', 'application/json, text/event-stream')
      .set('MCP-Protocol-Version', '2025-06-18')
      .send(body);
  const task = (method: string, taskId: string, tasks = true) =>
    modern(method, { taskId }, { tasks, name: taskId });

  async function client(kind: 'modern' | 'legacy'): Promise<Client2> {
    const c = new Client2(
      { name: `runtime-${kind}`, version: '1' },
      { versionNegotiation: { mode: kind === 'modern' ? 'auto' : 'legacy' } },
    );
    await c.connect(
      new StreamableHTTPClientTransport(url(), { requestInit: { headers: bearer(key) } }),
    );
    return c;
  }

  it.each(['modern', 'legacy'] as const)(
    'sends progress notifications before the result to a client that asks (%s)',
    async (kind) => {
      const c = await client(kind);
      const seen: { progress: number; total?: number; message?: string }[] = [];
      try {
        const result = await c.callTool(
          { name: 'slow', arguments: { ms: 300, steps: 3 } },
          { onprogress: (p) => seen.push(p) },
        );
        expect(result.structuredContent).toEqual({ label: 'slow', slept: 300 });
        expect(seen).toEqual([
          { progress: 1, total: 3, message: 'step 1' },
          { progress: 2, total: 3, message: 'step 2' },
          { progress: 3, total: 3, message: 'step 3' },
        ]);
      } finally {
        await c.close();
      }
    },
  );

  it('answers a request with a progressToken as SSE, the notifications first', async () => {
    const res = await t
      .http()
      .post('/mcp')
      .set(bearer(key))
      .set('Accept', 'application/json, text/event-stream')
      .set('MCP-Protocol-Version', MODERN)
      .set('Mcp-Method', 'tools/call')
      .set('Mcp-Name', 'slow')
      .buffer(true)
      .parse((r, done) => {
        let text = '';
        r.on('data', (chunk: Buffer) => (text += chunk.toString()));
        r.on('end', () => done(null, text));
      })
      .send({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: {
          name: 'slow',
          arguments: { ms: 200, steps: 2 },
          _meta: { ...envelope(false), progressToken: 'tok' },
        },
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const messages = events(res.body as string);
    expect(messages.map((m) => m.method ?? 'result')).toEqual([
      'notifications/progress',
      'notifications/progress',
      'result',
    ]);
    expect(messages[0].params).toEqual({
      progressToken: 'tok',
      progress: 1,
      total: 2,
      message: 'step 1',
    });
  });

  it("aborts the tool's signal on a 2025 notifications/cancelled of another POST", async () => {
    const pending = legacy({
      jsonrpc: '2.0',
      id: 'long-1',
      method: 'tools/call',
      params: { name: 'slow', arguments: { label: 'cancelled', ms: 20_000, steps: 100 } },
    });
    const answered = pending.then((res) => res);
    await until(() => probe.started.has('cancelled'), Boolean);
    // Another caller's cancel names the same id: it reaches nothing.
    const other = await t.createKey({ plan: 'unlimited', scope_template: 'standard' });
    const stranger = await t
      .http()
      .post('/mcp')
      .set(bearer(other))
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'long-1' } });
    expect(stranger.status).toBe(202);
    expect(probe.aborted.has('cancelled')).toBe(false);
    const cancel = await legacy({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'long-1', reason: 'user' },
    });
    expect(cancel.status).toBe(202);
    await until(
      () => probe.aborted.get('cancelled'),
      (reason) => reason !== undefined,
    );
    expect(probe.aborted.get('cancelled')).toBe('AbortError');
    expect((await answered).status).toBe(200);
  });

  it.each(['v1', 'modern'] as const)(
    "aborts the tool's signal on notifications/cancelled over stdio (%s)",
    async (kind) => {
      const stdio = await startStdioMcp({
        dataDir: t.dataDir,
        key,
        imports: [RuntimeToolsModule],
        client: kind,
      });
      try {
        const controller = new AbortController();
        const options = { signal: controller.signal };
        const params = {
          name: 'slow',
          arguments: { label: `stdio-${kind}`, ms: 20_000, steps: 100 },
        };
        // The 2.x client takes (params, options); the 1.x one (params, resultSchema, options).
        const call = (
          kind === 'modern'
            ? (stdio.client as unknown as Client2).callTool(params, options)
            : stdio.client.callTool(params, undefined, options)
        ).catch((error: unknown) => error);
        await until(() => probe.started.has(`stdio-${kind}`), Boolean);
        controller.abort('enough');
        await call;
        await until(
          () => probe.aborted.get(`stdio-${kind}`),
          (reason) => reason !== undefined,
        );
        expect(probe.aborted.get(`stdio-${kind}`)).toBe('AbortError');
      } finally {
        await stdio.close();
      }
    },
  );

  it('gives a client of the tasks extension a task for a background tool, one state with REST', async () => {
    const created = await callModern('background', { ms: 300, steps: 3 }, true);
    expect(created.status).toBe(200);
    const result = created.body.result as Record<string, unknown>;
    expect(result).toMatchObject({
      resultType: 'task',
      taskId: expect.stringMatching(/^inv_[0-9a-f]{32}$/),
      status: 'working',
      ttlMs: 86_400_000,
      pollIntervalMs: 1000,
    });
    const id = result.taskId as string;
    const rest = await t.http().get(`/api/v1/invocations/${id}`).set(bearer(key));
    expect([rest.status, rest.body.tool]).toEqual([200, 'background']);
    const done = await until(
      async () => (await task('tasks/get', id)).body.result as Record<string, unknown>,
      (r) => r.status === 'completed',
    );
    expect(done).toMatchObject({
      resultType: 'complete',
      taskId: id,
      result: { structuredContent: { label: 'slow', slept: 300 } },
    });
  });

  it('reads a call started over REST as a task, and cancels it over MCP', async () => {
    const started = await t
      .http()
      .post('/api/v1/services/slow')
      .set(bearer(key))
      .set('Prefer', 'respond-async')
      .send({ label: 'rest-task', ms: 20_000, steps: 100 });
    const id = started.body.id as string;
    const working = await task('tasks/get', id);
    expect(working.body.result).toMatchObject({ taskId: id, status: 'working' });
    const cancel = await task('tasks/cancel', id);
    expect(cancel.body.result).toEqual(expect.objectContaining({ resultType: 'complete' }));
    const cancelled = await until(
      async () => (await task('tasks/get', id)).body.result as Record<string, unknown>,
      (r) => r.status === 'cancelled',
    );
    expect(cancelled.status).toBe('cancelled');
    expect(probe.aborted.get('rest-task')).toBe('AbortError');
    expect((await task('tasks/update', id)).body.result).toEqual(
      expect.objectContaining({ resultType: 'complete' }),
    );
  });

  it('turns an allowed call into a task once it outlives MCP_TASK_AFTER_MS, for clients of the extension', async () => {
    const quick = await callModern('slow', { ms: 10 }, true);
    expect(quick.body.result.structuredContent).toEqual({ label: 'slow', slept: 10 });
    const long = await callModern('slow', { ms: 1600, steps: 4 }, true);
    const result = long.body.result as Record<string, unknown>;
    expect([result.resultType, result.status]).toEqual(['task', 'working']);
    const done = await until(
      async () =>
        (await task('tasks/get', result.taskId as string)).body.result as Record<string, unknown>,
      (r) => r.status === 'completed',
    );
    expect(done.result).toMatchObject({ structuredContent: { label: 'slow', slept: 1600 } });
    // A tool error ends the task completed, with the isError result.
    const failing = await callModern('obedient', {}, true);
    expect(failing.body.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: "Tool 'obedient' did not finish within 300 ms" }],
    });
  });

  it('refuses what needs the extension from a client that did not declare it (-32021), and unknown tasks (-32602)', async () => {
    const background = await callModern('background', { ms: 1 }, false);
    expect(background.status).toBe(400);
    expect(background.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
    const get = await task('tasks/get', `inv_${'0'.repeat(32)}`, false);
    expect(get.body.error.code).toBe(-32021);
    const unknown = await task('tasks/get', `inv_${'0'.repeat(32)}`);
    expect(unknown.body.error).toMatchObject({ code: -32602 });
    // A 2025 client is answered in the request.
    const inline = await legacy({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'background', arguments: { ms: 1 } },
    });
    expect(inline.body.result.structuredContent).toEqual({ label: 'slow', slept: 1 });
  });

  it("never shows one caller another's task", async () => {
    const created = await callModern('background', { ms: 5000, steps: 50 }, true);
    const id = created.body.result.taskId as string;
    const other = await t.createKey({ plan: 'unlimited', scope_template: 'standard' });
    const res = await t
      .http()
      .post('/mcp')
      .set(bearer(other))
      .set('Accept', 'application/json, text/event-stream')
      .set('MCP-Protocol-Version', MODERN)
      .set('Mcp-Method', 'tasks/get')
      .set('Mcp-Name', id)
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tasks/get',
        params: { taskId: id, _meta: envelope(true) },
      });
    expect(res.body.error).toMatchObject({ code: -32602 });
    await task('tasks/cancel', id);
  });
});
