/**
 * Load benchmark: the service and its peers side by side in one run, on this machine, with one load
 * generator (autocannon, in this process) and one connection count (BENCH_CONNECTIONS, 32):
 *   peers:    bare Node http, bare NestJS on Express, bare NestJS on Fastify, and a bare FastAPI
 *             route under uvicorn when a python3 with fastapi and uvicorn is found (skipped with a
 *             note otherwise);
 *   pipeline: this service's greet through the whole pipeline, on SQLite and on Redis (a private
 *             redis-server when one is installed), on Express (the default) and with
 *             HTTP_ADAPTER=fastify. The adapter that really runs is read from the start-up log line.
 * Every target is started first, one at a time (cold start: spawn to the first 200), then warmed up;
 * the measured rounds are interleaved (round 1 of every target, then round 2, …) so that a change
 * in the machine's background load falls on every target alike; the median round is quoted. Then
 * each pipeline target gets one long run (BENCH_STALL_DURATION, 30 s) that counts the requests over
 * 100 ms, and each SQLite pipeline target a soak of BENCH_SOAK_REQUESTS (200,000) for RSS growth.
 * Latencies are taken per answer (autocannon's hrtime per request) into a microsecond histogram.
 *
 * Run with `npm run bench` (builds first). Settings: BENCH_CONNECTIONS (32), BENCH_DURATION (8 s),
 * BENCH_ROUNDS (3), BENCH_WARMUP (3 s), BENCH_STALL_DURATION (30 s; 0 skips),
 * BENCH_SOAK_REQUESTS (200000; 0 skips), BENCH_TARGETS (comma list of target ids, default all),
 * BENCH_PYTHON (the python3 to try first), BENCH_APP_DIR (a directory holding a built dist/, default
 * this repository), BENCH_OUT (default bench/results/latest.json). Loopback only; every wait is
 * bounded; children and temporary directories are removed also on failure or interruption.
 */
import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createHistogram } from 'node:perf_hooks';
import {
  autocannon,
  freePort,
  installCleanup,
  machine,
  median,
  num,
  removeDir,
  ROOT,
  rssMb,
  sleep,
  startRedis,
  stop,
  tempDir,
  trackChild,
} from './lib';

const CONNECTIONS = num('BENCH_CONNECTIONS', 32);
const DURATION = num('BENCH_DURATION', 8);
const ROUNDS = num('BENCH_ROUNDS', 3);
const WARMUP = num('BENCH_WARMUP', 3);
const STALL_DURATION = num('BENCH_STALL_DURATION', 30);
const SOAK = num('BENCH_SOAK_REQUESTS', 200_000);
const APP_DIR = resolve(process.env.BENCH_APP_DIR ?? ROOT);
const OUT = resolve(ROOT, process.env.BENCH_OUT ?? 'bench/results/latest.json');
const BODY = JSON.stringify({ name: 'Alice', shout: true });
const GREET = '/api/v1/services/greet';
/** Latency thresholds counted per answer, in ms; the goal is on the last one. */
const OVER_MS = [10, 25, 50, 100] as const;
const STALL_MS = 100;

const TARGET_IDS = [
  'node',
  'nest-express',
  'nest-fastify',
  'fastapi',
  'express-sqlite',
  'express-redis',
  'fastify-sqlite',
  'fastify-redis',
] as const;
type TargetId = (typeof TARGET_IDS)[number];
type Adapter = 'express' | 'fastify';
type StoreKind = 'sqlite' | 'redis';
const PIPELINES: Partial<Record<TargetId, [Adapter, StoreKind]>> = {
  'express-sqlite': ['express', 'sqlite'],
  'express-redis': ['express', 'redis'],
  'fastify-sqlite': ['fastify', 'sqlite'],
  'fastify-redis': ['fastify', 'redis'],
};

interface Target {
  id: TargetId;
  label: string;
  pipeline?: { adapter: Adapter; store: StoreKind };
  headers: Record<string, string>;
  start(port: number): ChildProcess;
  cleanup?: () => void;
}

interface Load {
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  /** Answers slower than each of OVER_MS, keyed `>10ms` … `>100ms`. */
  over: Record<string, number>;
  /** The first answer on each connection, left out of the figures above (see below). */
  firstAnswers: { count: number; maxMs: number };
  non2xx: number;
  errors: number;
}

interface Running {
  target: Target;
  child: ChildProcess;
  url: string;
  coldStartMs: number;
  rssRestMb: number;
  stdoutTail: string[];
  stderrTail: string[];
  /** The start-up log line that says where it listens (service targets). */
  listeningLine?: string;
}

interface Result {
  id: TargetId;
  label: string;
  adapter?: { requested: Adapter; running: Adapter | 'unknown'; logLine?: string };
  rps: number;
  p50: number;
  p99: number;
  max: number;
  over100: number;
  non2xx: number;
  errors: number;
  rounds: Load[];
  coldStartMs: number;
  rssRestMb: number;
  rssAfterMb: number;
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

const log = (line: string) => process.stderr.write(`${line}\n`);
const round1 = (x: number) => Math.round(x * 10) / 10;
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
async function load(url: string, headers: Record<string, string>, opts: object): Promise<Load> {
  const histogram = createHistogram();
  const over = OVER_MS.map(() => 0);
  const connections = new WeakSet<object>();
  const firstAnswers = { count: 0, maxMs: 0 };
  const run = autocannon({
    url,
    method: 'POST',
    headers,
    body: BODY,
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
  const r = await run;
  const ms = (us: number) => round1(us / 1000);
  return {
    seconds: r.duration,
    requests: r.requests.total,
    rps: Math.round(r.requests.average),
    p50: ms(histogram.percentile(50)),
    p99: ms(histogram.percentile(99)),
    max: ms(histogram.max),
    over: Object.fromEntries(OVER_MS.map((t, i) => [`>${t}ms`, over[i]])),
    firstAnswers,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

// ---------------------------------------------------------------- targets

function nodeTarget(id: TargetId, label: string, file: string): Target {
  return {
    id,
    label,
    headers: { 'Content-Type': 'application/json' },
    start: (port) =>
      spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', file], {
        cwd: ROOT,
        env: { ...process.env, PORT: String(port) },
        stdio: ['ignore', 'ignore', 'pipe'],
      }),
  };
}

interface Python {
  command: string;
  versions: string;
}

/**
 * The first python3 that imports fastapi and uvicorn: BENCH_PYTHON, the one on PATH, then Debian's
 * own (python3-fastapi and python3-uvicorn install into /usr/bin/python3, which a pyenv or venv on
 * PATH hides).
 */
function findPython(): Python | { note: string } {
  const candidates = [
    ...new Set(
      [process.env.BENCH_PYTHON, 'python3', '/usr/bin/python3', '/usr/local/bin/python3'].filter(
        (c): c is string => !!c,
      ),
    ),
  ];
  const probe = [
    'import sys, fastapi, uvicorn, pydantic, importlib.util as u',
    'loop = "uvloop" if u.find_spec("uvloop") else "asyncio"',
    'http = "httptools" if u.find_spec("httptools") else "h11"',
    'print(f"Python {sys.version.split()[0]}, FastAPI {fastapi.__version__}, uvicorn {uvicorn.__version__} ({http}, {loop}), pydantic {pydantic.VERSION}")',
  ].join('\n');
  for (const command of candidates) {
    const r = spawnSync(command, ['-c', probe], { encoding: 'utf8', timeout: 20_000 });
    if (r.status === 0) return { command, versions: r.stdout.trim() };
  }
  return {
    note: `no python3 with fastapi and uvicorn among ${candidates.join(', ')} (Debian: apt-get install python3-fastapi python3-uvicorn; or set BENCH_PYTHON)`,
  };
}

function fastApiTarget(python: Python): Target {
  return {
    id: 'fastapi',
    label: `bare FastAPI route, uvicorn (${python.versions})`,
    headers: { 'Content-Type': 'application/json' },
    start: (port) =>
      spawn(
        python.command,
        [
          '-m',
          'uvicorn',
          '--app-dir',
          join(ROOT, 'bench/targets'),
          'bare_fastapi:app',
          '--host',
          '127.0.0.1',
          '--port',
          String(port),
          '--log-level',
          'warning',
          '--no-access-log',
        ],
        {
          cwd: ROOT,
          env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      ),
  };
}

/** The environment of a service target: what selects the adapter and the store is set here only. */
function serviceEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    'HTTP_ADAPTER',
    'REDIS_URL',
    'REDIS_SENTINELS',
    'REDIS_CLUSTER_NODES',
    'PORT',
    'HOST',
    'DATA_DIR',
  ]) {
    delete env[name];
  }
  return { ...env, ...extra };
}

/** A data directory and one unlimited bench key whose rate limit the load cannot reach. */
function serviceTarget(
  id: TargetId,
  adapter: Adapter,
  store: StoreKind,
  redisUrl?: string,
): Target {
  const dir = tempDir('tis-bench-');
  const env = serviceEnv({
    DATA_DIR: dir,
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    ...(adapter === 'fastify' ? { HTTP_ADAPTER: 'fastify' } : {}),
  });
  const out = execFileSync(
    process.execPath,
    [
      'dist/cli.js',
      'keys',
      'create',
      '--name',
      `bench-${id}`,
      '--template',
      'standard',
      '--plan',
      'unlimited',
      '--rate-limit',
      '100000000',
      '--json',
    ],
    { cwd: APP_DIR, env, encoding: 'utf8', timeout: 60_000 },
  );
  const key = (JSON.parse(out) as { key: string }).key;
  const how = adapter === 'fastify' ? 'HTTP_ADAPTER=fastify' : 'Express, the default';
  return {
    id,
    label: `greet, whole pipeline, ${store === 'sqlite' ? 'SQLite' : 'Redis'} (${how})`,
    pipeline: { adapter, store },
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    start: (port) =>
      spawn(process.execPath, ['dist/main.js'], {
        cwd: APP_DIR,
        env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    cleanup: () => removeDir(dir),
  };
}

// ---------------------------------------------------------------- phases

async function start(target: Target): Promise<Running> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}${GREET}`;
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
  const deadline = startedAt + 30_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${target.id} exited while starting:\n${running.stderrTail.join('\n')}`);
    }
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: target.headers,
        body: BODY,
        signal: AbortSignal.timeout(2000),
      });
      await res.arrayBuffer();
      if (res.status === 200) {
        running.coldStartMs = Math.round(performance.now() - startedAt);
        await sleep(1000);
        running.rssRestMb = rssMb(child.pid!);
        return running;
      }
    } catch {
      // not listening yet
    }
    await sleep(5);
  }
  throw new Error(`${target.id}: no 200 within 30 s:\n${running.stderrTail.join('\n')}`);
}

/** The adapter named by the start-up log line; 'unknown' while the log names none. */
function adapterOf(r: Running): Result['adapter'] {
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

async function stallRun(r: Running): Promise<NonNullable<Result['stall']>> {
  const before = await scrape(r);
  const l = await load(r.url, r.target.headers, { duration: STALL_DURATION });
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
async function soak(r: Running): Promise<NonNullable<Result['soak']>> {
  const pid = r.child.pid!;
  const series = [rssMb(pid)];
  const timer = setInterval(() => series.push(rssMb(pid)), 500);
  const l = await load(r.url, r.target.headers, { amount: SOAK });
  clearInterval(timer);
  series.push(rssMb(pid));
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

function summarise(r: Running, rounds: Load[], rssAfterMb: number): Result {
  return {
    id: r.target.id,
    label: r.target.label,
    adapter: adapterOf(r),
    rps: median(rounds.map((x) => x.rps)),
    p50: median(rounds.map((x) => x.p50)),
    p99: median(rounds.map((x) => x.p99)),
    max: Math.max(...rounds.map((x) => x.max)),
    over100: rounds.reduce((n, x) => n + x.over[`>${STALL_MS}ms`], 0),
    non2xx: rounds.reduce((n, x) => n + x.non2xx, 0),
    errors: rounds.reduce((n, x) => n + x.errors, 0),
    rounds,
    coldStartMs: r.coldStartMs,
    rssRestMb: r.rssRestMb,
    rssAfterMb,
  };
}

// ---------------------------------------------------------------- goals

interface Goal {
  goal: string;
  measured: string;
  verdict: 'met' | 'missed' | 'reported' | 'n/a';
  note?: string;
}

/** Why a result cannot stand for its adapter: HTTP_ADAPTER=fastify not seen running Fastify. */
function adapterDoubt(r: Result): string | undefined {
  if (!r.adapter) return undefined;
  const { requested, running } = r.adapter;
  if (running === requested) return undefined;
  if (requested === 'express' && running === 'unknown') return undefined;
  return `HTTP_ADAPTER=${requested} requested, the start-up log names ${running === 'unknown' ? 'no adapter' : running}`;
}

function goals(results: Result[], skipped: Record<string, string>): Goal[] {
  const by = (id: TargetId) => results.find((r) => r.id === id);
  const missing = (id: TargetId) => skipped[id] ?? `${id} not in BENCH_TARGETS`;
  const list: Goal[] = [];
  const ratio = (
    goal: string,
    a: TargetId,
    b: TargetId,
    field: 'rps' | 'p99',
    bound?: { op: '>=' | '<='; value: number },
  ) => {
    const x = by(a);
    const y = by(b);
    if (!x || !y) {
      list.push({ goal, measured: '–', verdict: 'n/a', note: missing(x ? b : a) });
      return;
    }
    const q = Math.round((x[field] / y[field]) * 100) / 100;
    const unit = field === 'rps' ? 'req/s' : 'ms';
    const measured = `${q} × (${x[field]} vs ${y[field]} ${unit})`;
    const doubt = adapterDoubt(x) ?? adapterDoubt(y);
    if (!bound) list.push({ goal, measured, verdict: 'reported', note: doubt });
    else if (doubt) list.push({ goal, measured, verdict: 'n/a', note: doubt });
    else {
      const ok = bound.op === '>=' ? q >= bound.value : q <= bound.value;
      list.push({ goal, measured, verdict: ok ? 'met' : 'missed' });
    }
  };
  ratio(
    'Express pipeline, SQLite ≥ 0.6 × bare NestJS on Express',
    'express-sqlite',
    'nest-express',
    'rps',
    { op: '>=', value: 0.6 },
  );
  ratio(
    'Express pipeline, SQLite: p99 ≤ 2 × bare NestJS on Express',
    'express-sqlite',
    'nest-express',
    'p99',
    { op: '<=', value: 2 },
  );
  ratio(
    'Fastify pipeline, SQLite ≥ 0.5 × bare NestJS on Fastify',
    'fastify-sqlite',
    'nest-fastify',
    'rps',
    { op: '>=', value: 0.5 },
  );
  ratio(
    'Fastify pipeline, SQLite: p99 ≤ 2 × bare NestJS on Fastify',
    'fastify-sqlite',
    'nest-fastify',
    'p99',
    { op: '<=', value: 2 },
  );
  ratio('Express: Redis ≥ 0.8 × SQLite', 'express-redis', 'express-sqlite', 'rps', {
    op: '>=',
    value: 0.8,
  });
  ratio('Fastify: Redis ≥ 0.8 × SQLite', 'fastify-redis', 'fastify-sqlite', 'rps', {
    op: '>=',
    value: 0.8,
  });
  ratio('Fastify pipeline, SQLite ≥ 2 × bare FastAPI', 'fastify-sqlite', 'fastapi', 'rps', {
    op: '>=',
    value: 2,
  });
  ratio('Express pipeline, SQLite vs bare FastAPI', 'express-sqlite', 'fastapi', 'rps');
  const pipelines = results.filter((r) => r.adapter);
  const settingsNote =
    STALL_DURATION === 30 && CONNECTIONS === 32
      ? undefined
      : `run was ${STALL_DURATION} s at ${CONNECTIONS} connections; the goal is stated for 30 s at 32`;
  for (const r of pipelines) {
    const doubt = adapterDoubt(r);
    const verdict = (ok: boolean) => (doubt ? 'n/a' : ok ? 'met' : 'missed');
    if (r.stall) {
      const n = r.stall.over[`>${STALL_MS}ms`];
      list.push({
        goal: `${r.id}: no request over ${STALL_MS} ms in a ${STALL_DURATION} s run`,
        measured: `${n} of ${r.stall.requests} (max ${r.stall.max} ms; the ${r.stall.firstAnswers.count} first answers on new connections, not counted: up to ${r.stall.firstAnswers.maxMs} ms)`,
        verdict: verdict(n === 0),
        note: doubt ?? settingsNote,
      });
    }
    if (r.soak) {
      list.push({
        goal: `${r.id}: RSS growth < 20 MB over ${SOAK} requests`,
        measured: `${r.soak.growthMb} MB (${r.soak.rssBeforeMb} → ${r.soak.rssAfterMb})`,
        verdict: verdict(r.soak.growthMb < 20),
        note: doubt,
      });
    }
    list.push({
      goal: `${r.id}: cold start < 1.5 s`,
      measured: `${(r.coldStartMs / 1000).toFixed(2)} s`,
      verdict: verdict(r.coldStartMs < 1500),
      note: doubt,
    });
  }
  return list;
}

// ---------------------------------------------------------------- report

function adapterCell(r: Result): string {
  if (!r.adapter) return '–';
  const { requested, running } = r.adapter;
  if (running === 'unknown') return `${requested} requested, log names none`;
  return running === requested ? running : `${requested} requested, ${running} ran`;
}

function report(results: Result[], goalList: Goal[], notes: string[]): string {
  const lines = [
    `autocannon, ${CONNECTIONS} connections, POST ${GREET} ${BODY}; ${ROUNDS} interleaved rounds of ${DURATION} s after a ${WARMUP} s warm-up, median round quoted; 127.0.0.1`,
    '',
    '| target | adapter | req/s | p50 ms | p99 ms | max ms | > 100 ms | non-2xx | errors | cold start ms | RSS rest → after MB |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.label} | ${adapterCell(r)} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.max} | ${r.over100} | ${r.non2xx} | ${r.errors} | ${r.coldStartMs} | ${r.rssRestMb} → ${r.rssAfterMb} |`,
    ),
  ];
  const stalls = results.filter((r) => r.stall);
  if (stalls.length) {
    lines.push(
      '',
      `Long runs (${STALL_DURATION} s, ${CONNECTIONS} connections): answers over each threshold, the event loop's max delay (prom-client) and GC pauses over 10 / 100 ms in the run`,
      '',
      '| target | requests | req/s | p99 ms | max ms | > 10 | > 25 | > 50 | > 100 ms | loop max ms | GC > 10 / > 100 ms | first answers max ms |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...stalls.map((r) => {
        const s = r.stall!;
        const o = (t: number) => s.over[`>${t}ms`];
        return `| ${r.id} | ${s.requests} | ${s.rps} | ${s.p99} | ${s.max} | ${o(10)} | ${o(25)} | ${o(50)} | ${o(100)} | ${s.loopMaxMs} | ${s.gcOver10ms} / ${s.gcOver100ms} | ${s.firstAnswers.maxMs} |`;
      }),
    );
  }
  lines.push(
    '',
    '| goal | measured | verdict |',
    '|---|---|---|',
    ...goalList.map(
      (g) => `| ${g.goal} | ${g.measured} | ${g.verdict}${g.note ? ` (${g.note})` : ''} |`,
    ),
  );
  if (notes.length) lines.push('', ...notes.map((n) => `- ${n}`));
  return lines.join('\n');
}

// ---------------------------------------------------------------- main

function selectedTargets(): TargetId[] {
  const raw = process.env.BENCH_TARGETS;
  if (!raw) return [...TARGET_IDS];
  const ids = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = ids.filter((id) => !(TARGET_IDS as readonly string[]).includes(id));
  if (unknown.length) {
    throw new Error(`unknown BENCH_TARGETS ${unknown.join(', ')}; known: ${TARGET_IDS.join(', ')}`);
  }
  return TARGET_IDS.filter((id) => ids.includes(id));
}

async function main(): Promise<void> {
  installCleanup();
  const startedAt = new Date().toISOString();
  const atStart = machine();
  const ids = selectedTargets();
  const skipped: Record<string, string> = {};
  const notes: string[] = [];
  const targets: Target[] = [];
  let redis: Awaited<ReturnType<typeof startRedis>>;
  for (const id of ids) {
    if (id === 'node') targets.push(nodeTarget(id, 'bare Node http', 'bench/targets/bare-node.ts'));
    if (id === 'nest-express')
      targets.push(nodeTarget(id, 'bare NestJS on Express', 'bench/targets/bare-nest.ts'));
    if (id === 'nest-fastify')
      targets.push(nodeTarget(id, 'bare NestJS on Fastify', 'bench/targets/bare-nest-fastify.ts'));
    if (id === 'fastapi') {
      const python = findPython();
      if ('note' in python) skipped[id] = `FastAPI skipped: ${python.note}`;
      else targets.push(fastApiTarget(python));
    }
    const pipeline = PIPELINES[id];
    if (!pipeline) continue;
    const [adapter, store] = pipeline;
    if (store === 'sqlite') targets.push(serviceTarget(id, adapter, store));
    else {
      redis ??= await startRedis();
      if (redis) targets.push(serviceTarget(id, adapter, store, redis.url));
      else skipped[id] = `${id} skipped: no redis-server on PATH`;
    }
  }
  notes.push(...Object.values(skipped));
  Object.values(skipped).forEach((n) => log(n));

  const running: Running[] = [];
  try {
    for (const t of targets) {
      log(`starting ${t.id}`);
      const r = await start(t);
      running.push(r);
      log(`  ${t.id}: first 200 after ${r.coldStartMs} ms, RSS ${r.rssRestMb} MB`);
      if (t.pipeline) log(`  ${t.id}: adapter ${JSON.stringify(adapterOf(r))}`);
    }
    for (const r of running) await load(r.url, r.target.headers, { duration: WARMUP });
    const rounds = new Map<Running, Load[]>(running.map((r) => [r, []]));
    for (let i = 0; i < ROUNDS; i++) {
      for (const r of running) {
        const l = await load(r.url, r.target.headers, { duration: DURATION });
        rounds.get(r)!.push(l);
        log(
          `  round ${i + 1} ${r.target.id}: ${l.rps} req/s, p50 ${l.p50} p99 ${l.p99} max ${l.max} ms, >100 ms ${l.over['>100ms']}, non-2xx ${l.non2xx}, errors ${l.errors}`,
        );
        await sleep(500);
      }
    }
    const results = running.map((r) => summarise(r, rounds.get(r)!, rssMb(r.child.pid!)));
    for (const [i, r] of running.entries()) {
      if (!r.target.pipeline) continue;
      if (STALL_DURATION > 0) {
        log(`  long run ${r.target.id} (${STALL_DURATION} s)`);
        results[i].stall = await stallRun(r);
      }
      if (SOAK > 0 && r.target.pipeline.store === 'sqlite') {
        log(`  soak ${r.target.id} (${SOAK} requests)`);
        results[i].soak = await soak(r);
      }
    }
    const goalList = goals(results, skipped);
    const out = {
      startedAt,
      finishedAt: new Date().toISOString(),
      machine: atStart,
      loadavg1AtEnd: machine().loadavg1,
      settings: {
        generator: 'autocannon (in the bench process)',
        connections: CONNECTIONS,
        durationS: DURATION,
        rounds: ROUNDS,
        warmupS: WARMUP,
        stallDurationS: STALL_DURATION,
        soakRequests: SOAK,
        appDir: APP_DIR,
        body: BODY,
      },
      results,
      goals: goalList,
      notes,
    };
    mkdirSync(dirname(OUT), { recursive: true });
    writeFileSync(OUT, JSON.stringify(out, null, 2));
    process.stdout.write(`${report(results, goalList, notes)}\n\nresults: ${OUT}\n`);
  } finally {
    for (const r of running) await stop(r.child);
    for (const t of targets) t.cleanup?.();
    await redis?.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
