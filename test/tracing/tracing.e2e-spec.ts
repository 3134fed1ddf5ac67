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
