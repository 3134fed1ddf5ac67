/**
 * `npm run bench:span-cost`: what one recorded span costs in the OpenTelemetry SDK itself, set up
 * as the service sets it up when tracing is on (src/tracing/sdk.ts: the tracer provider, every call sampled, spans batched and
 * exported as OTLP/HTTP protobuf to a receiver on loopback), without the service: the floor under
 * what tracing adds to a call (docs/performance.md, "What issue 41 costs greet").
 *
 * A child process makes BENCH_SPAN_TRACES traces (20,000) of one SERVER span and, for each count
 * of children in BENCH_SPAN_CHILDREN (0 and 10), that many CLIENT spans of four attributes, the
 * shape of a SQLite statement's; it yields to the event loop every 20 traces, so that the batch
 * processor exports as it goes rather than dropping what overflows its queue. The figure is the
 * child's user + system CPU per trace (process.cpuUsage), export included; the receiver runs in
 * this process. A child span costs the difference, divided by the children.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { num, ROOT } from './lib';
import { startOtlpSink } from './otlp-sink';

const TRACES = num('BENCH_SPAN_TRACES', 20_000);
const CHILDREN = (process.env.BENCH_SPAN_CHILDREN ?? '0,10').split(',').map(Number);

/** In the child: the traces, then one line of JSON, CPU µs per trace. */
async function child(children: number): Promise<void> {
  // Loaded after the variables are set, as the service's tracing/start.ts loads the SDK.
  const { shutdownTracing } = await import('../src/tracing/sdk');
  const api = await import('@opentelemetry/api');
  const tracer = api.trace.getTracer('span-cost');
  const attributes = {
    'db.system.name': 'sqlite',
    'db.operation.name': 'INSERT',
    'db.query.summary': 'INSERT usage_counters',
    'db.collection.name': 'usage_counters',
  };
  const trace = async () => {
    const root = tracer.startSpan('POST /api/v1/services/greet', {
      kind: api.SpanKind.SERVER,
      attributes: { 'http.request.method': 'POST', 'url.path': '/api/v1/services/greet' },
    });
    // The children in the server span's context, as a request's are, past one await.
    await api.context.with(api.trace.setSpan(api.ROOT_CONTEXT, root), async () => {
      await Promise.resolve();
      for (let i = 0; i < children; i++) {
        tracer
          .startSpan(attributes['db.query.summary'], { kind: api.SpanKind.CLIENT, attributes })
          .end();
      }
    });
    root.setAttribute('http.response.status_code', 200);
    root.end();
  };
  const round = async (count: number) => {
    for (let i = 0; i < count; i++) {
      await trace();
      if (i % 20 === 19) await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await round(2_000); // warm-up: JIT, the exporter's first connection
  // The warm-up's last spans exported before counting: the batch's delay is 5 s by default.
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  const before = process.cpuUsage();
  await round(TRACES);
  await shutdownTracing(); // the last batches' export, counted
  const used = process.cpuUsage(before);
  console.log(JSON.stringify({ children, perTrace: (used.user + used.system) / TRACES }));
}

async function main(): Promise<void> {
  const sink = await startOtlpSink();
  const perTrace = new Map<number, number>();
  for (const children of CHILDREN) {
    // A process each: a count's spans do not share a heap or a JIT state with another's. Not
    // spawnSync: the receiver answers from this process's event loop.
    const run = await promisify(execFile)(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', __filename, '--child', String(children)],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          OTEL_TRACES_SAMPLER: 'always_on',
          OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        },
      },
    );
    const line = JSON.parse(run.stdout.trim().split('\n').pop()!) as { perTrace: number };
    perTrace.set(children, line.perTrace);
    console.log(`${children} children: ${line.perTrace.toFixed(1)} µs CPU a trace`);
  }
  const counts = [...perTrace.keys()].sort((a, b) => a - b);
  const [fewest, most] = [counts[0], counts[counts.length - 1]];
  if (most > fewest) {
    const each = (perTrace.get(most)! - perTrace.get(fewest)!) / (most - fewest);
    console.log(`a child span: ${each.toFixed(1)} µs CPU (made, ended, batched, exported)`);
  }
  const { exports, bytes } = sink.received();
  console.log(`receiver: ${exports} exports, ${(bytes / 1e6).toFixed(1)} MB`);
  await sink.close();
}

if (process.argv[2] === '--child') void child(Number(process.argv[3]));
else void main();
