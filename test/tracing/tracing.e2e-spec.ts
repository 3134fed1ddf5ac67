import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INITIAL_KEY_FILE } from '../../src/subjects/initial-key';
import { baseEnv, SpawnedApp, spawnListening, tempDataDir } from '../support/app';
import { OtlpReceiver } from '../support/otlp-receiver';
import { redisTestEnv, usingSharedRedis } from '../support/redis';
import { CLI_ARGS } from '../support/cli';
import { initializeRequest } from '../support/mcp-messages';

/**
 * The built server as operators start it, with the standard OpenTelemetry variables only, against
 * an OTLP/HTTP receiver on loopback that decodes what the exporter really sends (protobuf). The
 * SDK instruments modules as the process loads them, which a jest module registry hides: hence a
 * process of its own.
 */
describe('OpenTelemetry traces (e2e)', () => {
  let receiver: OtlpReceiver;
  let server: SpawnedApp | undefined;

  beforeEach(async () => {
    receiver = await OtlpReceiver.start();
  });
  afterEach(async () => {
    await server?.stop('SIGKILL');
    await receiver.close();
  });

  /** The built server with `otel` over the test's environment; its address and admin key. */
  async function start(otel: Record<string, string>, cwd?: string) {
    const dataDir = tempDataDir();
    const started = await spawnListening({
      cwd,
      env: { ...baseEnv(dataDir), DATA_DIR: dataDir, ...otel },
    });
    server = started.app;
    const key = readFileSync(join(dataDir, INITIAL_KEY_FILE), 'utf8').trim();
    return { base: `http://127.0.0.1:${started.port}`, key, dataDir };
  }

  const traceparent = () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    return { traceId, parentId, header: `00-${traceId}-${parentId}-01` };
  };

  /**
   * Every test reads the spans once the server has stopped: they are exported then, all at once
   * (the batch delay longer than any test), not in 50 ms batches, of which a loaded machine may
   * leave many in flight together. The CI lost a call's spans twice under load with 50 ms batches;
   * the likely cause is the exporter's limit of concurrent exports, past which it drops a batch.
   */
  const EXPORT_AT_STOP = '600000';

  /**
   * The variables that export to the test's receiver, at the server's stop, waiting as long as a
   * loaded machine makes an export take: the SDK drops a batch whose export times out (10 s by
   * default), and a test would then miss its spans.
   */
  const toReceiver = () => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: EXPORT_AT_STOP,
    OTEL_EXPORTER_OTLP_TIMEOUT: '120000',
    OTEL_BSP_EXPORT_TIMEOUT: '120000',
  });

  /** A REST greet with `headers` (a `traceparent`, say), answered 200. */
  const greet = async (
    base: string,
    key: string,
    headers: Record<string, string>,
    name = 'Ada',
  ) => {
    const res = await fetch(`${base}/api/v1/services/greet`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ name }),
    });
    expect(res.status).toBe(200);
  };

  it("continues a REST caller's trace, names the service, and sends nothing secret", async () => {
    const { base, key } = await start({
      ...toReceiver(),
      OTEL_SERVICE_NAME: 'tis-under-test',
    });
    const caller = traceparent();
    await greet(base, key, { traceparent: caller.header });
    // A key created inside a traced call: its audit line is written in that call's span.
    const made = traceparent();
    const created = await fetch(`${base}/api/v1/auth/api-keys`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        traceparent: made.header,
      },
      body: JSON.stringify({ name: 'traced', scope_template: 'standard' }),
    });
    expect(created.status).toBe(201);
    const secret = ((await created.json()) as { key: string }).key;
    // SIGTERM: the server answers what it holds, then the SDK exports what it buffered.
    await server!.stop();

    const ofCall = receiver.spans().filter((span) => span.traceId === caller.traceId);
    const http = ofCall.find((span) => span.kind === 'SPAN_KIND_SERVER');
    expect(http).toMatchObject({
      parentSpanId: caller.parentId,
      resource: expect.objectContaining({ 'service.name': 'tis-under-test' }),
    });
    expect(Object.values(http!.attributes)).toContain('POST');

    const audit = server!.logRecords().find((line) => {
      const entry = line.audit as { action?: string; details?: { name?: string } } | undefined;
      return entry?.action === 'api_key.create' && entry.details?.name === 'traced';
    });
    expect(audit).toMatchObject({ trace_id: made.traceId, span_id: expect.any(String) });
    const createSpan = receiver.spans().find((span) => span.spanId === audit!.span_id);
    expect(createSpan?.traceId).toBe(made.traceId);

    // Neither the keys, nor the Authorization header, in any span's bytes.
    const sent = receiver.raw();
    for (const text of [key, secret, 'Bearer', 'authorization']) {
      expect(sent.includes(text)).toBe(false);
    }
  });

  it('makes the HTTP span after the HTTP conventions: its route, its status, probes untraced', async () => {
    const { base, key } = await start({ ...toReceiver(), APP__LOGGING__VERBOSE: 'yes' });
    const called = traceparent();
    await greet(base, key, { traceparent: called.header, 'user-agent': 'traced-client/1.0' });
    const refused = traceparent();
    const wrongType = await fetch(`${base}/api/v1/services/greet?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', traceparent: refused.header },
      body: 'hello',
    });
    expect(wrongType.status).toBe(415);
    // A body in three segments, 50 ms apart: what follows its read is still in the request's span.
    const streamed = traceparent();
    const segments = ['{"na', 'me":"Seg', 'ments"}'];
    const slow = await fetch(`${base}/api/v1/services/greet`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        traceparent: streamed.header,
      },
      body: new ReadableStream<Uint8Array>({
        async pull(controller) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          const next = segments.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(next));
        },
      }),
      duplex: 'half',
    });
    expect(slow.status).toBe(200);
    const probe = traceparent();
    expect((await fetch(`${base}/health`, { headers: { traceparent: probe.header } })).status).toBe(
      200,
    );
    await server!.stop();

    const serverSpan = (traceId: string) =>
      receiver
        .spans()
        .filter((span) => span.traceId === traceId && span.kind === 'SPAN_KIND_SERVER')
        .find((span) => span.attributes['http.request.method'] !== undefined);
    const call = serverSpan(called.traceId);
    expect(call).toMatchObject({
      parentSpanId: called.parentId,
      attributes: expect.objectContaining({
        'http.request.method': 'POST',
        'url.path': '/api/v1/services/greet',
        'url.scheme': 'http',
        'http.response.status_code': '200', // an int, as protobuf's decoder gives longs
        'user_agent.original': 'traced-client/1.0',
      }),
    });
    const route = call!.attributes['http.route'];
    expect(route).toMatch(/^\/api\/v1\/services\//);
    expect(call!.name).toBe(`POST ${String(route)}`);
    // Its children were made after the body was read, in the request's context.
    const children = receiver.spans().filter((span) => span.parentSpanId === call!.spanId);
    expect(children.map((span) => span.name)).toEqual(
      expect.arrayContaining(['check authenticate', 'execute_tool greet']),
    );
    const streamedCall = serverSpan(streamed.traceId);
    expect(
      receiver
        .spans()
        .filter((span) => span.parentSpanId === streamedCall?.spanId)
        .map((span) => span.name),
    ).toEqual(expect.arrayContaining(['check authenticate', 'execute_tool greet']));
    // Refused at the front door: its status, no error (a 4xx is the client's), no query string.
    const refusal = serverSpan(refused.traceId);
    expect(refusal?.attributes).toMatchObject({
      'url.path': '/api/v1/services/greet',
      'http.response.status_code': '415',
    });
    expect(refusal?.attributes['error.type']).toBeUndefined();
    expect(receiver.raw().includes('x=1')).toBe(false);
    expect(receiver.spans().filter((span) => span.traceId === probe.traceId)).toEqual([]);
    // The access line, written once the answer went out, carries its request's trace.
    const access = server!.logRecords().find((line) => {
      const req = line.req as { url?: string; method?: string } | undefined;
      return req?.method === 'POST' && line.res !== undefined && line.trace_id === called.traceId;
    });
    expect(access).toMatchObject({ span_id: call!.spanId });
  });

  it('traces the steps that wait on I/O and, on SQLite, each statement by its name alone', async () => {
    const { base, key } = await start(toReceiver());
    const caller = traceparent();
    await greet(base, key, { 'idempotency-key': 'traced-once', traceparent: caller.header });
    await server!.stop();
    const ofCall = receiver.spans().filter((span) => span.traceId === caller.traceId);
    const names = ofCall.map((span) => span.name);
    expect(names).toEqual(
      expect.arrayContaining(['check authenticate', 'check rate', 'check idempotency']),
    );
    const http = ofCall.find((span) => span.parentSpanId === caller.parentId)!;
    const authenticate = ofCall.find((span) => span.name === 'check authenticate')!;
    expect(authenticate.parentSpanId).toBe(http.spanId);
    if (!usingSharedRedis()) {
      // Statements are events of the span they run in (a check's, a write's COMMIT span).
      const events = ofCall.flatMap((span) => span.events);
      expect(events.length).toBeGreaterThan(0);
      for (const event of events) {
        expect(event.name).toMatch(/^[A-Z]+( [a-z_]+)?$/);
        expect(event.attributes['db.query.summary']).toBe(event.name);
        expect(event.attributes['db.system.name']).toBe('sqlite');
      }
      // The key's read on its first call, in its authentication.
      expect(authenticate.events.map((event) => event.name)).toContain('SELECT api_keys');
      // A write's span is its call's: never a trace of its own (the first key's, at start-up).
      const sqlite = receiver
        .spans()
        .filter((span) => span.attributes['db.system.name'] === 'sqlite');
      expect(sqlite.length).toBeGreaterThan(0);
      expect(sqlite.filter((span) => !span.parentSpanId).map((span) => span.name)).toEqual([]);
    }
  });

  it('reads the OTEL_* variables from .env, as every other setting', async () => {
    const dir = tempDataDir();
    writeFileSync(
      join(dir, '.env'),
      `OTEL_EXPORTER_OTLP_ENDPOINT=${receiver.url}\nOTEL_BSP_SCHEDULE_DELAY=${EXPORT_AT_STOP}\n`,
    );
    const { base, key } = await start({}, dir);
    const caller = traceparent();
    await greet(base, key, { traceparent: caller.header });
    await server!.stop();
    expect(receiver.spans().some((span) => span.traceId === caller.traceId)).toBe(true);
  });

  /** One JSON-RPC POST to `/mcp` with the key, as a streamable-HTTP client sends it. */
  const rpc = (base: string, key: string, body: object, headers: Record<string, string> = {}) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });

  /** 2026-07-28's per-request envelope, in a message's `_meta`. */
  const ENVELOPE = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };

  /** A raw MCP tools/call of either revision, `traceparent` in its `_meta`. */
  const mcpCall = (
    base: string,
    key: string,
    revision: '2026-07-28' | '2025-06-18',
    meta: object,
    args: object,
  ) =>
    rpc(
      base,
      key,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'greet',
          arguments: args,
          _meta: { ...meta, ...(revision === '2026-07-28' ? ENVELOPE : {}) },
        },
      },
      {
        'mcp-protocol-version': revision,
        ...(revision === '2026-07-28' ? { 'mcp-method': 'tools/call', 'mcp-name': 'greet' } : {}),
      },
    );

  it.each(['2026-07-28', '2025-06-18'] as const)(
    "continues an MCP client's trace from _meta (%s): the tools/call span, its tool span, isError as tool_error",
    async (revision) => {
      const { base, key } = await start(toReceiver());
      const agent = traceparent();
      const ok = await mcpCall(base, key, revision, { traceparent: agent.header }, { name: 'Ada' });
      expect(ok.status).toBe(200);
      const wrong = traceparent();
      const refused = await mcpCall(
        base,
        key,
        revision,
        { traceparent: wrong.header },
        { name: 42 },
      );
      expect(refused.status).toBe(200);
      await server!.stop();

      const spans = receiver.spans();
      const call = spans.find((s) => s.traceId === agent.traceId && s.name === 'tools/call greet');
      expect(call).toMatchObject({
        kind: 'SPAN_KIND_SERVER',
        parentSpanId: agent.parentId,
        attributes: expect.objectContaining({
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': 'greet',
          'gen_ai.operation.name': 'execute_tool',
          'network.transport': 'tcp',
          'mcp.protocol.version': revision,
          'jsonrpc.request.id': '7',
        }),
      });
      expect(call!.attributes['error.type']).toBeUndefined();
      // Linked to the HTTP request's span, which is of another trace (the POST carried none).
      const http = spans.find((s) => s.spanId === call!.links[0]?.spanId);
      expect(http?.kind).toBe('SPAN_KIND_SERVER');
      // Among the call's children (on Redis, its counting script's span too), the tool's run.
      const tool = spans.find(
        (s) => s.parentSpanId === call!.spanId && s.name === 'execute_tool greet',
      );
      expect(tool).toMatchObject({
        name: 'execute_tool greet',
        attributes: expect.objectContaining({
          'tis.caller.kind': 'key',
          'tis.outcome': 'success',
        }),
      });
      const failed = spans.find(
        (s) => s.traceId === wrong.traceId && s.name === 'tools/call greet',
      );
      expect(failed?.attributes['error.type']).toBe('tool_error');
      expect(receiver.raw().includes(key)).toBe(false);
    },
  );

  it('traces the MCP messages the SDK answers, tools/list, and a background run linked to the request that accepted it', async () => {
    const { base, key } = await start(toReceiver());
    const init = traceparent();
    const initialized = await rpc(base, key, initializeRequest('a'), { traceparent: init.header });
    expect(initialized.status).toBe(200);
    const listed = traceparent();
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect((await rpc(base, key, list, { traceparent: listed.header })).status).toBe(200);
    // 2026-07-28's discovery (its headers repeat what its envelope says).
    const discovered = traceparent();
    const discover = {
      jsonrpc: '2.0',
      id: 3,
      method: 'server/discover',
      params: { _meta: ENVELOPE },
    };
    const discovery = await rpc(base, key, discover, {
      traceparent: discovered.header,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'server/discover',
    });
    expect(discovery.status).toBe(200);

    const accepting = traceparent();
    // doctor may run in the background (async: allowed); greet never does.
    const accepted = await fetch(`${base}/api/v1/services/doctor`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        prefer: 'respond-async',
        traceparent: accepting.header,
      },
      body: JSON.stringify({}),
    });
    expect(accepted.status).toBe(202);
    const location = accepted.headers.get('location')!;
    // Polled to its end (a bounded loop: at most 30 s).
    let status = 'running';
    for (let i = 0; i < 600 && /^(queued|running)$/.test(status); i++) {
      await new Promise((wake) => setTimeout(wake, 50));
      const view = await fetch(new URL(location, base), {
        headers: { authorization: `Bearer ${key}` },
      });
      status = ((await view.json()) as { status: string }).status;
    }
    expect(status).toMatch(/^(succeeded|failed)$/);
    await server!.stop();

    const spans = receiver.spans();
    const initialize = spans.find((s) => s.traceId === init.traceId && s.name === 'initialize');
    expect(initialize?.attributes).toMatchObject({
      'mcp.method.name': 'initialize',
      'mcp.protocol.version': '2025-06-18',
      'jsonrpc.request.id': 'a',
    });
    const listing = spans.find((s) => s.traceId === listed.traceId && s.name === 'tools/list');
    expect(listing?.attributes).toMatchObject({ 'mcp.method.name': 'tools/list' });
    const discovering = spans.find(
      (s) => s.traceId === discovered.traceId && s.name === 'server/discover',
    );
    expect(discovering?.attributes).toMatchObject({
      'mcp.method.name': 'server/discover',
      'mcp.protocol.version': '2026-07-28',
      'jsonrpc.request.id': '3',
    });

    const http = spans.find(
      (s) => s.traceId === accepting.traceId && s.parentSpanId === accepting.parentId,
    );
    const run = spans.find((s) => s.name === 'background_run doctor');
    // A trace of its own, linked to the request that accepted it.
    expect(run?.traceId).not.toBe(accepting.traceId);
    expect(run?.links.map((link) => link.spanId)).toEqual([http!.spanId]);
    expect(run?.attributes).toMatchObject({
      'tis.invocation.id': location.split('/').pop(),
      'tis.caller.kind': 'key',
    });
    const tool = spans.find((s) => s.parentSpanId === run!.spanId);
    expect(tool?.name).toBe('execute_tool doctor');
  });

  it('traces MCP over stdio from _meta, to the same receiver, its stdout left to the protocol', async () => {
    const { key, dataDir } = await start({});
    await server!.stop();
    server = undefined;
    const agent = traceparent();
    const lines = [
      initializeRequest(),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'greet', arguments: { name: 'Ada' }, _meta: { traceparent: agent.header } },
      },
    ];
    const child = spawn(process.execPath, [...CLI_ARGS, 'mcp'], {
      cwd: dataDir,
      env: {
        PATH: process.env.PATH ?? '',
        ...redisTestEnv(dataDir),
        DATA_DIR: dataDir,
        MCP_API_KEY: key,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        // Both: the console exporter must not write into the protocol's stream.
        OTEL_TRACES_EXPORTER: 'otlp,console',
        OTEL_BSP_SCHEDULE_DELAY: EXPORT_AT_STOP,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stderr.resume();
    const answered = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('"id":2')) resolve();
      }),
    );
    const exited = new Promise((resolve) => child.on('close', resolve));
    child.stdin.write(lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    await answered;
    child.stdin.end();
    await exited;

    // Every line of stdout is a JSON-RPC message.
    for (const line of stdout.split('\n').filter(Boolean)) {
      expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    }
    const call = receiver
      .spans()
      .find((s) => s.traceId === agent.traceId && s.name === 'tools/call greet');
    expect(call).toMatchObject({
      parentSpanId: agent.parentId,
      attributes: expect.objectContaining({
        'network.transport': 'pipe',
        'mcp.protocol.version': '2025-06-18',
        'jsonrpc.request.id': '2',
      }),
    });
    expect(receiver.raw().includes(key)).toBe(false);
  });

  it('records tool arguments and results only when the operator opts in', async () => {
    const marker = `Ada-${randomBytes(4).toString('hex')}`;
    let { base, key } = await start(toReceiver());
    await greet(base, key, {}, marker);
    await server!.stop();
    expect(receiver.spans().some((s) => s.name === 'execute_tool greet')).toBe(true);
    expect(receiver.raw().includes(marker)).toBe(false);

    ({ base, key } = await start({
      ...toReceiver(),
      OTEL_TIS_CAPTURE_ARGUMENTS: 'true',
    }));
    await greet(base, key, {}, marker);
    await server!.stop();
    const tool = receiver
      .spans()
      .find(
        (s) =>
          s.name === 'execute_tool greet' &&
          String(s.attributes['gen_ai.tool.call.arguments']).includes(marker),
      );
    // The arguments as the tool got them (its defaults filled in).
    expect(JSON.parse(String(tool?.attributes['gen_ai.tool.call.arguments']))).toMatchObject({
      name: marker,
    });
    expect(String(tool?.attributes['gen_ai.tool.call.result'])).toContain(marker);
  });

  if (usingSharedRedis()) {
    it('traces the Redis commands of a call by their name only', async () => {
      const { base, key } = await start(toReceiver());
      const caller = traceparent();
      const res = await fetch(`${base}/api/v1/usage`, {
        headers: { authorization: `Bearer ${key}`, traceparent: caller.header },
      });
      expect(res.status).toBe(200);
      await server!.stop();
      const redis = receiver
        .spans()
        .filter((span) => span.traceId === caller.traceId && span.kind === 'SPAN_KIND_CLIENT');
      expect(redis.length).toBeGreaterThan(0);
      for (const span of redis) {
        const text = String(span.attributes['db.query.text'] ?? span.attributes['db.statement']);
        // The command alone: a key name holds a hash of a secret.
        expect(text).toMatch(/^[A-Za-z]+( [A-Za-z]+)?$/);
      }
    });
  }

  it.each([
    ['OTEL_SDK_DISABLED=true', { OTEL_SDK_DISABLED: 'true' }],
    ['OTEL_TRACES_EXPORTER=none', { OTEL_TRACES_EXPORTER: 'none' }],
  ])('sends nothing with an endpoint set but %s', async (_, off) => {
    const { base, key } = await start({
      ...toReceiver(),
      ...off,
    });
    await greet(base, key, { traceparent: traceparent().header });
    await server!.stop();
    expect(receiver.received).toBe(0);
    // Nor does any log line carry a trace id.
    expect(server!.logRecords().some((line) => 'trace_id' in line)).toBe(false);
  });
});
