import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INITIAL_KEY_FILE } from '../../src/subjects/initial-key';
import { baseEnv, SpawnedApp, spawnApp, tempDataDir } from '../support/app';
import { OtlpReceiver } from '../support/otlp-receiver';
import { freePort, usingSharedRedis } from '../support/redis';

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
  async function start(otel: Record<string, string>) {
    const dataDir = tempDataDir();
    const port = await freePort();
    server = spawnApp({
      env: {
        ...baseEnv(dataDir),
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(port),
        ...otel,
      },
    });
    await server.line(/Listening on/);
    const key = readFileSync(join(dataDir, INITIAL_KEY_FILE), 'utf8').trim();
    return { base: `http://127.0.0.1:${port}`, key };
  }

  const traceparent = () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    return { traceId, parentId, header: `00-${traceId}-${parentId}-01` };
  };

  it("continues a REST caller's trace, names the service, and sends nothing secret", async () => {
    const { base, key } = await start({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'tis-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    const caller = traceparent();
    const res = await fetch(`${base}/api/v1/services/greet`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        traceparent: caller.header,
      },
      body: JSON.stringify({ name: 'Ada' }),
    });
    expect(res.status).toBe(200);
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

  /** A raw MCP tools/call of either revision, `traceparent` in its `_meta`. */
  const mcpCall = (
    base: string,
    key: string,
    revision: '2026-07-28' | '2025-06-18',
    meta: object,
    args: object,
  ) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': revision,
        ...(revision === '2026-07-28' ? { 'mcp-method': 'tools/call', 'mcp-name': 'greet' } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'greet',
          arguments: args,
          _meta: {
            ...meta,
            ...(revision === '2026-07-28'
              ? {
                  'io.modelcontextprotocol/protocolVersion': revision,
                  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
                  'io.modelcontextprotocol/clientCapabilities': {},
                }
              : {}),
          },
        },
      }),
    });

  it.each(['2026-07-28', '2025-06-18'] as const)(
    "continues an MCP client's trace from _meta (%s): the tools/call span, its tool span, isError as tool_error",
    async (revision) => {
      const { base, key } = await start({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '50',
      });
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

  if (usingSharedRedis()) {
    it('traces the Redis commands of a call by their name only', async () => {
      const { base, key } = await start({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '50',
      });
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
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      ...off,
    });
    const res = await fetch(`${base}/api/v1/services/greet`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        traceparent: traceparent().header,
      },
      body: JSON.stringify({ name: 'Ada' }),
    });
    expect(res.status).toBe(200);
    await server!.stop();
    expect(receiver.received).toBe(0);
    // Nor does any log line carry a trace id.
    expect(server!.logRecords().some((line) => 'trace_id' in line)).toBe(false);
  });
});
