import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INITIAL_KEY_FILE } from '../../src/subjects/initial-key';
import { baseEnv, SpawnedApp, spawnListening, tempDataDir } from '../support/app';
import { OtlpReceiver, ReceivedSpan } from '../support/otlp-receiver';
import { usingSharedRedis } from '../support/redis';

/**
 * The spans of a call at the default detail (docs/observability.md, "What is traced"): the HTTP
 * span, one span per MCP message, the tool's, a span per store transaction or round trip (its
 * statements its events), a check's only when it waits on I/O; the same on the first call and a
 * later one; statement spans only with OTEL_TIS_SPAN_DETAIL=statements. The built server as
 * operators start it, against an OTLP/HTTP receiver on loopback (see tracing.e2e-spec.ts).
 */
describe('OpenTelemetry traces: the spans of a call (e2e)', () => {
  let receiver: OtlpReceiver;
  let server: SpawnedApp | undefined;
  const redis = usingSharedRedis();

  beforeEach(async () => {
    receiver = await OtlpReceiver.start();
  });
  afterEach(async () => {
    await server?.stop('SIGKILL');
    await receiver.close();
  });

  /** The built server exporting to the receiver once it stops (tracing.e2e-spec.ts says why). */
  async function start(otel: Record<string, string> = {}) {
    const dataDir = tempDataDir();
    const started = await spawnListening({
      env: {
        ...baseEnv(dataDir),
        DATA_DIR: dataDir,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '600000',
        OTEL_EXPORTER_OTLP_TIMEOUT: '120000',
        OTEL_BSP_EXPORT_TIMEOUT: '120000',
        ...otel,
      },
    });
    server = started.app;
    const key = readFileSync(join(dataDir, INITIAL_KEY_FILE), 'utf8').trim();
    return { base: `http://127.0.0.1:${started.port}`, key };
  }

  const traceparent = () => {
    const traceId = randomBytes(16).toString('hex');
    return { traceId, header: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
  };

  /** A trace's spans as `name < parent's name`, sorted: its shape, whatever its ids and times. */
  const shapeOf = (spans: ReceivedSpan[]) => {
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    return spans
      .map((span) => `${span.name} < ${byId.get(span.parentSpanId ?? '')?.name ?? '(caller)'}`)
      .sort();
  };
  const ofTrace = (traceId: string) => receiver.spans().filter((s) => s.traceId === traceId);

  const greet = async (base: string, key: string, trace: string) => {
    const res = await fetch(`${base}/api/v1/services/greet`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        traceparent: trace,
      },
      body: JSON.stringify({ name: 'Ada' }),
    });
    expect(res.status).toBe(200);
  };

  const ENVELOPE = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };

  /** A raw MCP tools/call of greet, of either revision, its trace in the POST's `traceparent`. */
  const mcpGreet = async (
    base: string,
    key: string,
    revision: '2026-07-28' | '2025-06-18',
    trace: string,
  ) => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        traceparent: trace,
        'mcp-protocol-version': revision,
        ...(revision === '2026-07-28' ? { 'mcp-method': 'tools/call', 'mcp-name': 'greet' } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'greet',
          arguments: { name: 'Ada' },
          ...(revision === '2026-07-28' ? { _meta: ENVELOPE } : {}),
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Hello, Ada');
  };

  /** What a store's span is named: SQLite's transaction, or a Redis command (its name alone). */
  const isStoreSpan = (span: ReceivedSpan) => span.kind === 'SPAN_KIND_CLIENT';

  it('makes the same spans for a REST greet, an MCP tools/call of each revision and an async call, first call and later', async () => {
    const { base, key } = await start();
    const calls = {
      rest: (trace: string) => greet(base, key, trace),
      mcp2026: (trace: string) => mcpGreet(base, key, '2026-07-28', trace),
      mcp2025: (trace: string) => mcpGreet(base, key, '2025-06-18', trace),
    };
    const traces: Record<string, string[]> = {};
    for (const round of [1, 2, 3]) {
      for (const [name, call] of Object.entries(calls)) {
        const trace = traceparent();
        await call(trace.header);
        traces[`${name} ${round}`] = [trace.traceId];
      }
    }
    // Async: accepted (202), run in a trace of its own linked to the request.
    const accepting: string[] = [];
    for (const round of [1, 2]) {
      const trace = traceparent();
      const accepted = await fetch(`${base}/api/v1/services/doctor`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          prefer: 'respond-async',
          traceparent: trace.header,
        },
        body: JSON.stringify({}),
      });
      expect(accepted.status).toBe(202);
      const location = accepted.headers.get('location')!;
      let status = 'running';
      for (let i = 0; i < 600 && /^(queued|running)$/.test(status); i++) {
        await new Promise((wake) => setTimeout(wake, 50));
        const view = await fetch(new URL(location, base), {
          headers: { authorization: `Bearer ${key}` },
        });
        status = ((await view.json()) as { status: string }).status;
      }
      expect(status).toMatch(/^(succeeded|failed)$/);
      accepting[round - 1] = trace.traceId;
    }
    await server!.stop();

    const shape = (name: string) => shapeOf(ofTrace(traces[name][0]));
    // On Redis, the key's first call reads its record (its commands under its authentication),
    // which later calls take from the copy kept between calls: the one difference there is.
    const keyRead = /^[a-z]+ < check authenticate$/;
    for (const call of Object.keys(calls)) {
      // The first call after the start, and later ones: the same spans.
      const [first, later] = [shape(`${call} 1`), shape(`${call} 3`)];
      const extra = [...first];
      for (const line of later) extra.splice(extra.indexOf(line), extra.includes(line) ? 1 : 0);
      expect(first.filter((line) => !extra.includes(line))).toEqual(later);
      expect(extra.filter((line) => !redis || !keyRead.test(line))).toEqual([]);
      expect(shape(`${call} 2`)).toEqual(shape(`${call} 3`));
    }
    const rest = shape('rest 3');
    const route = ofTrace(traces['rest 3'][0]).find((s) => s.kind === 'SPAN_KIND_SERVER')!.name;
    const store = ofTrace(traces['rest 3'][0]).filter(isStoreSpan);
    // The HTTP span, the two checks that wait on the store, the tool's; the count's write.
    expect(rest.filter((line) => !store.some((s) => line.startsWith(`${s.name} <`)))).toEqual(
      [
        `${route} < (caller)`,
        `check authenticate < ${route}`,
        `check rate < ${route}`,
        `execute_tool greet < ${route}`,
      ].sort(),
    );
    if (!redis) expect(store.map((s) => s.name)).toEqual(['COMMIT']);
    expect(store.length).toBeGreaterThan(0);
    for (const revision of ['mcp2026', 'mcp2025']) {
      const spans = ofTrace(traces[`${revision} 3`][0]);
      const names = spans.filter((s) => !isStoreSpan(s)).map((s) => s.name);
      expect(names.filter((name) => name === 'tools/call greet')).toHaveLength(1);
      expect(names.filter((name) => name === 'execute_tool greet')).toHaveLength(1);
      // One count of the rate a message: the POST's.
      expect(names.filter((name) => name === 'check rate')).toHaveLength(1);
      expect(names.filter((name) => name.startsWith('POST '))).toHaveLength(1);
    }
    // Each async call's run: its own trace, the same spans.
    const runs = accepting.map((traceId) => {
      const http = ofTrace(traceId).find((s) => s.kind === 'SPAN_KIND_SERVER')!;
      const run = receiver
        .spans()
        .find((s) => s.name === 'background_run doctor' && s.links[0]?.spanId === http.spanId)!;
      // Less the tool's own commands on Redis: doctor asks the store as often as its checks take;
      // and on SQLite its progress's writes, one each PROGRESS_WRITE_MS the run lasts (none when
      // it is quick, one or more on a loaded machine).
      const own = (line: string) =>
        redis
          ? /^[a-z]+ < execute_tool doctor$/.test(line)
          : line === 'COMMIT < execute_tool doctor';
      const ran = shapeOf(ofTrace(run.traceId)).filter((line) => !own(line));
      return { accepting: shapeOf(ofTrace(traceId)), run: ran };
    });
    expect(runs[0]).toEqual(runs[1]);
    expect(runs[0].run).toContain('execute_tool doctor < background_run doctor');
    // No SQLite statement is a span of its own at the default detail: they are its spans' events.
    const sqlite = receiver.spans().filter((s) => s.attributes['db.system.name'] === 'sqlite');
    expect(sqlite.filter((s) => s.name !== 'COMMIT')).toEqual([]);
    if (!redis) {
      const events = receiver.spans().flatMap((s) => s.events);
      expect(events.length).toBeGreaterThan(0);
      for (const event of events) {
        expect(event.attributes['db.query.summary']).toBe(event.name);
        expect(event.name).toMatch(/^[A-Z]+( [a-z_]+)?$/);
      }
    }
  });

  it('makes a span of each SQLite statement with OTEL_TIS_SPAN_DETAIL=statements', async () => {
    const { base, key } = await start({ OTEL_TIS_SPAN_DETAIL: 'statements' });
    const first = traceparent();
    await greet(base, key, first.header);
    const later = traceparent();
    await greet(base, key, later.header);
    await server!.stop();
    const statements = (traceId: string) =>
      ofTrace(traceId).filter(
        (s) => s.attributes['db.system.name'] === 'sqlite' && s.name !== 'COMMIT',
      );
    if (redis) {
      // Redis has no statements: its commands are its round trips, at either detail.
      expect(statements(later.traceId)).toEqual([]);
      return;
    }
    expect(statements(later.traceId).length).toBeGreaterThan(0);
    for (const span of statements(later.traceId)) {
      expect(span.kind).toBe('SPAN_KIND_CLIENT');
      expect(span.attributes['db.query.summary']).toBe(span.name);
      expect(span.events).toEqual([]);
    }
    // The count's statements under its transaction's span.
    const commit = ofTrace(later.traceId).find((s) => s.name === 'COMMIT')!;
    expect(statements(later.traceId).some((s) => s.parentSpanId === commit.spanId)).toBe(true);
  });
});
