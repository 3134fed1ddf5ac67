/**
 * How a target is measured: started (cold start to its first answer), sampled (one answer read and
 * checked after the warm-up), loaded with autocannon (every answer's latency into a microsecond
 * histogram), run long with the event loop and GC read from /metrics, soaked for RSS growth.
 */
import { ChildProcess } from 'node:child_process';
import { createHistogram } from 'node:perf_hooks';
import type { Adapter, StoreKind } from './kinds';
import { autocannon, freePort, median, rssMb, sleep, trackChild } from './lib';
import { CONNECTIONS, OVER_MS, STALL_DURATION, STALL_MS, SOAK } from './settings';
import type { Target } from './targets';

export interface Load {
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  /** Answers slower than each of OVER_MS, keyed `>10ms` … `>100ms`. */
  over: Record<string, number>;
  /** The first answer on each connection, left out of the figures above (see `load`). */
  firstAnswers: { count: number; maxMs: number };
  non2xx: number;
  errors: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
}

export interface Running {
  target: Target;
  child: ChildProcess;
  url: string;
  coldStartMs: number;
  rssRestMb: number;
  stdoutTail: string[];
  stderrTail: string[];
  /** The start-up log line that says where it listens (service targets). */
  listeningLine?: string;
  /** How the process ended, once it has: before the bench stops it, the target is lost. */
  exited?: string;
}

/** One answer read after the warm-up: its status, the start of its body, why it fails if it does. */
export interface Sample {
  status: number;
  body: string;
  failure?: string;
}

export interface Result {
  id: string;
  label: string;
  pipeline?: {
    kind: string;
    adapter: Adapter;
    store: StoreKind;
    variant?: string;
    base: boolean;
    plainId: string;
  };
  adapter?: { requested: Adapter; running: Adapter | 'unknown'; logLine?: string };
  sample?: Sample;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  over100: number;
  non2xx: number;
  errors: number;
  statuses: Record<string, number>;
  rounds: Load[];
  coldStartMs: number;
  rssRestMb: number;
  rssAfterMb: number;
  /** The process ended before the rounds did (killed from outside, crashed). */
  exited?: string;
  stall?: Load & { loopMaxMs?: number; gcOver10ms?: number; gcOver100ms?: number };
  soak?: {
    requests: number;
    /** The median trough of RSS in the soak's first and last quarter (see `soak`). */
    rssBeforeMb: number;
    rssAfterMb: number;
    growthMb: number;
    /** RSS every 500 ms during the soak. */
    rssSeriesMb: number[];
  };
}

export const log = (line: string) => process.stderr.write(`${line}\n`);
export const round1 = (x: number) => Math.round(x * 10) / 10;
const keepTail = (tail: string[], chunk: Buffer) => {
  tail.push(...chunk.toString().split('\n').filter(Boolean));
  tail.splice(0, Math.max(0, tail.length - 40));
};

/**
 * autocannon at CONNECTIONS, every answer's latency (hrtime, ms) recorded in microseconds. The first
 * answer on each connection is counted apart: autocannon opens all its connections at once, and a
 * server already busy with the first ones accepts the others one per event-loop turn, so the last
 * of 32 waits for 31 turns (300 ms on the pipeline; bench/README.md, "Connection ramp"). That is
 * the load generator's start, not the server's steady state.
 */
export async function load(r: Running, opts: object): Promise<Load> {
  const histogram = createHistogram();
  const over = OVER_MS.map(() => 0);
  const connections = new WeakSet<object>();
  const firstAnswers = { count: 0, maxMs: 0 };
  const run = autocannon({
    url: r.url,
    method: 'POST',
    headers: r.target.headers,
    body: r.target.body,
    connections: CONNECTIONS,
    ...opts,
  });
  run.on('response', (client, _status, _bytes, ms) => {
    if (!connections.has(client as object)) {
      connections.add(client as object);
      firstAnswers.count++;
      firstAnswers.maxMs = Math.max(firstAnswers.maxMs, round1(ms));
      return;
    }
    histogram.record(Math.max(1, Math.round(ms * 1000)));
    for (let i = 0; i < OVER_MS.length; i++) if (ms > OVER_MS[i]) over[i]++;
  });
  const res = await run;
  const ms = (us: number) => round1(us / 1000);
  const statuses = Object.fromEntries(
    Object.entries(res.statusCodeStats ?? {}).map(([status, s]) => [status, s.count]),
  );
  return {
    seconds: res.duration,
    requests: res.requests.total,
    rps: Math.round(res.requests.average),
    p50: ms(histogram.percentile(50)),
    p99: ms(histogram.percentile(99)),
    max: ms(histogram.max),
    over: Object.fromEntries(OVER_MS.map((t, i) => [`>${t}ms`, over[i]])),
    firstAnswers,
    non2xx: res.non2xx,
    errors: res.errors,
    statuses,
  };
}

/** One request as the load sends it, by fetch; the body read whole. */
async function ask(target: Target, url: string, timeoutMs: number) {
  const res = await fetch(url, {
    method: 'POST',
    headers: target.headers,
    body: target.body,
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, body: await res.text() };
}

/**
 * Spawns the target and polls its request every 5 ms: cold start is the time to the first answer
 * under 500 (a 2xx, or a refusal the sample after the warm-up reports). Throws when the process
 * exits or nothing answers in 30 s; a target still answering 5xx then is taken as it is.
 */
export async function start(target: Target): Promise<Running> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}${target.path}`;
  const startedAt = performance.now();
  const child = trackChild(target.start(port));
  const running: Running = {
    target,
    child,
    url,
    coldStartMs: 0,
    rssRestMb: 0,
    stdoutTail: [],
    stderrTail: [],
  };
  child.stdout?.on('data', (d: Buffer) => {
    keepTail(running.stdoutTail, d);
    running.listeningLine ??= running.stdoutTail.find((l) => l.includes('Listening on'));
  });
  child.stderr?.on('data', (d: Buffer) => keepTail(running.stderrTail, d));
  child.once('exit', (code, signal) => {
    running.exited = signal ? `killed by ${signal}` : `exited with code ${code}`;
  });
  const deadline = startedAt + 30_000;
  let answered = false;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${target.id} exited while starting:\n${running.stderrTail.join('\n')}`);
    }
    try {
      const { status } = await ask(target, url, 2000);
      answered = true;
      if (status < 500) {
        running.coldStartMs = Math.round(performance.now() - startedAt);
        break;
      }
    } catch {
      // not listening yet
    }
    await sleep(5);
  }
  if (!running.coldStartMs) {
    if (!answered) {
      throw new Error(`${target.id}: no answer within 30 s:\n${running.stderrTail.join('\n')}`);
    }
    running.coldStartMs = Math.round(performance.now() - startedAt);
  }
  await sleep(1000);
  running.rssRestMb = rssMb(child.pid!);
  return running;
}

/** One answer read whole: a status other than 2xx, or what the kind finds wrong in the body. */
export async function sample(r: Running): Promise<Sample> {
  try {
    const { status, body } = await ask(r.target, r.url, 10_000);
    const shown = body.length > 300 ? `${body.slice(0, 300)}…` : body;
    const failure =
      status < 200 || status > 299
        ? `answers ${status}, not 2xx`
        : r.target.pipeline?.kind.failure?.(body);
    return { status, body: shown, failure };
  } catch (error) {
    return { status: 0, body: '', failure: `no answer: ${(error as Error).message}` };
  }
}

/** The adapter named by the start-up log line; 'unknown' while the log names none. */
export function adapterOf(r: Running): Result['adapter'] {
  if (!r.target.pipeline) return undefined;
  const named = /\b(express|fastify)\b/i.exec(r.listeningLine ?? '')?.[1]?.toLowerCase();
  return {
    requested: r.target.pipeline.adapter,
    running: (named as Adapter | undefined) ?? 'unknown',
    logLine: r.listeningLine,
  };
}

/** prom-client's figures from /metrics: the loop's max delay since the last scrape, GC counts. */
async function scrape(r: Running) {
  const res = await fetch(new URL('/metrics', r.url), { signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  const sum = (re: RegExp) =>
    [...text.matchAll(re)].reduce((total, m) => total + Number(m[1]), 0) || 0;
  return {
    loopMaxMs: round1(
      Number(/^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1] ?? NaN) * 1000,
    ),
    gcCount: sum(/^nodejs_gc_duration_seconds_count\{[^}]*\} (\S+)$/gm),
    gcUpTo10ms: sum(/^nodejs_gc_duration_seconds_bucket\{le="0\.01",[^}]*\} (\S+)$/gm),
    gcUpTo100ms: sum(/^nodejs_gc_duration_seconds_bucket\{le="0\.1",[^}]*\} (\S+)$/gm),
  };
}

export async function stallRun(r: Running): Promise<NonNullable<Result['stall']>> {
  const before = await scrape(r);
  const l = await load(r, { duration: STALL_DURATION });
  const after = await scrape(r);
  const gcCount = after.gcCount - before.gcCount;
  return {
    ...l,
    loopMaxMs: after.loopMaxMs,
    gcOver10ms: gcCount - (after.gcUpTo10ms - before.gcUpTo10ms),
    gcOver100ms: gcCount - (after.gcUpTo100ms - before.gcUpTo100ms),
  };
}

/**
 * RSS growth over the soak, robust to when the collector last ran: RSS swings by tens of MB between
 * collections (about 60 MB on Express), so two single readings can differ by that much with nothing
 * leaked. RSS is read at the start, every 500 ms and at the end of the soak; the growth is the
 * median trough of its last quarter minus the median trough of its first. The troughs (readings
 * no higher than their neighbours: right after collections) are what a leak raises, all of them;
 * their median, not their lowest, since now and then one trough falls 20 MB under the others
 * (memory handed back to the system) and the lowest of a quarter then measures that fall.
 */
export async function soak(r: Running): Promise<NonNullable<Result['soak']>> {
  const pid = r.child.pid!;
  const series: number[] = [];
  // a process gone mid-soak leaves its series short; the soak's load then fails with errors
  const read = () => {
    try {
      series.push(rssMb(pid));
    } catch {
      // gone
    }
  };
  read();
  const timer = setInterval(read, 500);
  // `bailout`: a soak counts answers, so a server gone would otherwise keep it going for ever
  const l = await load(r, { amount: SOAK, bailout: 1000 });
  clearInterval(timer);
  read();
  const quarter = Math.max(1, Math.floor(series.length / 4));
  const rssBeforeMb = median(troughs(series.slice(0, quarter)));
  const rssAfterMb = median(troughs(series.slice(-quarter)));
  return {
    requests: l.requests,
    rssBeforeMb,
    rssAfterMb,
    growthMb: round1(rssAfterMb - rssBeforeMb),
    rssSeriesMb: series,
  };
}

/** The readings no higher than their neighbours (a quarter's ends count as having one). */
function troughs(series: number[]): number[] {
  return series.filter(
    (v, i) => (i === 0 || v <= series[i - 1]) && (i === series.length - 1 || v <= series[i + 1]),
  );
}

export function summarise(r: Running, rounds: Load[], s: Sample, rssAfterMb: number): Result {
  const p = r.target.pipeline;
  const statuses: Record<string, number> = {};
  for (const l of rounds) {
    for (const [k, n] of Object.entries(l.statuses)) statuses[k] = (statuses[k] ?? 0) + n;
  }
  return {
    id: r.target.id,
    label: r.target.label,
    pipeline: p && {
      kind: p.kind.prefix || 'rest',
      adapter: p.adapter,
      store: p.store,
      variant: p.variant?.prefix,
      base: p.base,
      plainId: p.id,
    },
    adapter: adapterOf(r),
    sample: s,
    rps: median(rounds.map((x) => x.rps)),
    p50: median(rounds.map((x) => x.p50)),
    p99: median(rounds.map((x) => x.p99)),
    max: Math.max(...rounds.map((x) => x.max)),
    over100: rounds.reduce((n, x) => n + x.over[`>${STALL_MS}ms`], 0),
    non2xx: rounds.reduce((n, x) => n + x.non2xx, 0),
    errors: rounds.reduce((n, x) => n + x.errors, 0),
    statuses,
    rounds,
    coldStartMs: r.coldStartMs,
    rssRestMb: r.rssRestMb,
    rssAfterMb,
    exited: r.exited,
  };
}
