/**
 * `npm run bench:long-calls`, three parts (`BENCH_LONG_PARTS`, default `compare,burst,ledger`).
 *
 * `compare`: async at the speed of sync. An `unlimited` key sends flat out, on
 * BENCH_LONG_CONNECTIONS (32) connections for BENCH_LONG_DURATION (10) s, calls of a test tool
 * that sleeps 50 ms (`slow`, `{"ms": 50}`), synchronously, then the same with `Prefer:
 * respond-async`, BENCH_LONG_ROUNDS (3) rounds, on one instance per store (the order of the two
 * alternates between rounds). The load's client runs in a process of its own at a lower priority
 * (`nice -n 10`); meanwhile this process asks `GET /health` every 20 ms on a connection of its
 * own. Reported per store and mode, the median of the rounds: calls answered 2xx a second (200
 * sync, 202 async), the other answers, `/health` p50 and p99, the event loop's longest delay, the
 * service's CPU per 2xx call; and the two ratios the contract names: accepted async ÷ sync calls
 * (≥ 0.5) and async ÷ sync `/health` p99 (≤ 2).
 *
 * `burst`: BENCH_LONG_CALLS (1,000) long-running calls started at once on one instance, each a
 * test tool that works 5 s (`slow` of test/support/runtime-tools.module.ts, the service started
 * by test/support/runtime-server.ts), with `Prefer: respond-async`. Every call must be accepted
 * (202) or refused at capacity (503), none lost: each accepted one is read back `succeeded`.
 * Reported per scenario: the answers by status, the 202s' latency, how long until every accepted
 * call had finished, the service's RSS before, at its peak and after, and the event loop's longest
 * delay meanwhile (prom-client's `nodejs_eventloop_lag_max_seconds`).
 *
 * Scenarios: the tool's defaults (64 running, 64 waiting: most calls refused at once), and
 * capacity for all of them (`tools.slow.concurrency: 1000` in CONFIG_FILE). SQLite, and Redis
 * when redis-server is on the PATH.
 *
 * `ledger`: `/health` while `doctor` reconciles a 100,000-entry ledger and while eight exports
 * stream it (bench/ledger-load.ts).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, get } from 'node:http';
import {
  CannonResult,
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
import { LEDGER_TABLE_HEAD, ledgerLoad } from './ledger-load';

const PARTS = (process.env.BENCH_LONG_PARTS ?? 'compare,burst,ledger')
  .split(',')
  .map((p) => p.trim());
const CALLS = num('BENCH_LONG_CALLS', 1000);
const WORK_MS = num('BENCH_LONG_CALL_MS', 5000);
const CONNECTIONS = num('BENCH_LONG_CONNECTIONS', 32);
const DURATION = num('BENCH_LONG_DURATION', 10);
const ROUNDS = num('BENCH_LONG_ROUNDS', 3);
/** The tool's sleep in the comparison, and how often the prober asks /health. */
const SLEEP_MS = 50;
const PROBE_EVERY_MS = 20;

interface Scenario {
  name: string;
  tools: string;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'defaults (concurrency 64, queue 64)',
    tools: 'tools:\n  slow:\n    timeout_ms: 60000\n',
  },
  {
    name: `capacity for all (concurrency ${CALLS}, queue 0)`,
    tools: `tools:\n  slow:\n    timeout_ms: 60000\n    concurrency: ${CALLS}\n    queue: 0\n`,
  },
];

function lagSeconds(text: string): number {
  const line = text.split('\n').find((l) => l.startsWith('nodejs_eventloop_lag_max_seconds '));
  return line ? Number(line.split(' ')[1]) : NaN;
}

interface Service {
  base: string;
  adminKey: string;
  pid: number;
  stop(): Promise<void>;
}

/** The service with the runtime's test tools (test/support/runtime-server.ts), on a fresh store. */
async function startService(
  tools: string,
  redisUrl: string | undefined,
  extra: Record<string, string> = {},
): Promise<Service> {
  const dir = tempDir('tis-long-');
  const config = join(dir, 'config.yaml');
  writeFileSync(config, tools);
  const env = {
    DATA_DIR: dir,
    CONFIG_FILE: config,
    PLAN_UNLIMITED_RATE_LIMIT: '100000000',
    HTTP_MAX_CONNECTIONS: String(CALLS + 100),
    ...(redisUrl ? { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `long-${Date.now()}:` } : {}),
    ...extra,
  };
  const child = trackChild(
    spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', 'test/support/runtime-server.ts'],
      {
        cwd: ROOT,
        env: { ...process.env, RUNTIME_APP_ENV: JSON.stringify(env) },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    ),
  );
  const stopAll = async () => {
    await stop(child);
    removeDir(dir);
  };
  try {
    const line = await new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the service exited (${code})`)));
      createInterface({ input: child.stdout }).on('line', (text) => {
        if (text.startsWith('{"port"')) resolve(text);
      });
    });
    const { port, adminKey } = JSON.parse(line) as { port: number; adminKey: string };
    return { base: `http://127.0.0.1:${port}`, adminKey, pid: child.pid!, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

// ---------------------------------------------------------------- compare: sync against async

/**
 * The load's client, in a process of its own at a lower priority (`nice -n 10`), and the service
 * and the prober are what is measured. Flat out it is autocannon (each connection sends again as
 * soon as it is answered: two to three times as many requests in the async phase, whose answers
 * do not wait for the tool, as in the sync one). At a rate it is the pacer below, not autocannon:
 * autocannon's rate lets each connection send its share of a second as fast as it is answered and
 * then wait for the next second, so async answers (immediate) would come in bursts a sync client
 * (50 ms an answer) never makes. The pacer sends one request every 1/rate s, open loop, over at
 * most `connections` kept-alive sockets. Either prints its result as JSON (autocannon's shape).
 */
const LOAD = `
const options = JSON.parse(process.env.LOAD_OPTIONS);
if (!options.rate) {
  require(process.env.AUTOCANNON_MODULE)(options).then((result) => {
    process.stdout.write(JSON.stringify(result));
  });
} else {
  const http = require('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const counts = {};
  let errors = 0;
  let sent = 0;
  let answered = 0;
  const send = () => {
    sent++;
    const req = http.request(options.url, { method: options.method, headers: options.headers, agent }, (res) => {
      res.resume();
      res.on('end', () => {
        counts[res.statusCode] = (counts[res.statusCode] ?? 0) + 1;
        answered++;
      });
    });
    req.on('error', () => { errors++; answered++; });
    req.end(options.body);
  };
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
  const timer = setInterval(() => {
    const due = Math.min(Math.floor(elapsed() * options.rate), options.rate * options.duration);
    while (sent < due) send();
    if (sent >= options.rate * options.duration) {
      clearInterval(timer);
      const duration = elapsed();
      const done = setInterval(() => {
        if (answered < sent) return;
        clearInterval(done);
        agent.destroy();
        const statusCodeStats = {};
        for (const [status, count] of Object.entries(counts)) statusCodeStats[status] = { count };
        process.stdout.write(JSON.stringify({ statusCodeStats, errors, timeouts: 0, duration }));
      }, 10);
    }
  }, 2);
}
`;

function runLoad(options: Record<string, unknown>): Promise<CannonResult> {
  const child = trackChild(
    spawn('nice', ['-n', '10', process.execPath, '-e', LOAD], {
      cwd: ROOT,
      env: {
        ...process.env,
        AUTOCANNON_MODULE: require.resolve('autocannon'),
        LOAD_OPTIONS: JSON.stringify(options),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => {
      if (code === 0) resolve(JSON.parse(out) as CannonResult);
      else reject(new Error(`the load's client exited (${code})`));
    }),
  );
}

/**
 * The /health prober, in this process (idle but for it while the load runs): one request every
 * PROBE_EVERY_MS on one kept-alive connection, each timed, until stopped.
 */
function startProber(base: string): { stop(): Promise<number[]> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let stopped = false;
  const once = () =>
    new Promise<number>((resolve) => {
      const t0 = process.hrtime.bigint();
      const req = get(`${base}/health`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
      });
      req.on('error', () => resolve(NaN));
    });
  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      const ms = await once();
      if (!Number.isNaN(ms)) times.push(ms);
      await sleep(Math.max(0, PROBE_EVERY_MS - (Date.now() - started)));
    }
    agent.destroy();
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return times;
    },
  };
}

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
};

type Mode = 'sync' | 'async';

interface Phase {
  mode: Mode;
  /** Calls answered 2xx a second: 200 (sync) or 202 (async, accepted). */
  perSecond: number;
  statuses: Record<string, number>;
  healthP50: number;
  healthP99: number;
  loopMaxMs: number;
  /** The service's CPU time (user + system) per call answered 2xx, its run and end included. */
  cpuMsPerCall: number;
}

/** CPU time (user + system) a process has used, in ms (`/proc/<pid>/stat`, 100 ticks a second). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * One phase: the load flat out (or at `rate` requests a second over all connections), /health
 * probed meanwhile; then the accepted calls drain.
 */
async function phase(service: Service, mode: Mode, seconds: number, rate?: number): Promise<Phase> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${service.adminKey}`,
    'content-type': 'application/json',
    ...(mode === 'async' ? { prefer: 'respond-async' } : {}),
  };
  await fetch(`${service.base}/metrics`);
  const cpuBefore = cpuMs(service.pid);
  const prober = startProber(service.base);
  const result = await runLoad({
    url: `${service.base}/api/v1/services/slow`,
    method: 'POST',
    headers,
    body: JSON.stringify({ ms: SLEEP_MS }),
    connections: CONNECTIONS,
    duration: seconds,
    ...(rate ? { rate } : {}),
  });
  const health = await prober.stop();
  const lag = lagSeconds(await (await fetch(`${service.base}/metrics`)).text());
  const statuses: Record<string, number> = {};
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) {
    statuses[status] = count;
  }
  if (result.errors) statuses.errors = result.errors;
  if (result.timeouts) statuses.timeouts = result.timeouts;
  // The accepted calls finish before the next phase starts (they are 50 ms each).
  await sleep(2000);
  const calls = statuses[mode === 'sync' ? '200' : '202'] ?? 0;
  return {
    mode,
    perSecond: calls / (result.duration || seconds),
    cpuMsPerCall: (cpuMs(service.pid) - cpuBefore) / calls,
    statuses,
    healthP50: percentile(health, 0.5),
    healthP99: percentile(health, 0.99),
    loopMaxMs: lag * 1000,
  };
}

interface Comparison {
  store: string;
  /** Each round's two phases flat out, sync first. */
  rounds: Phase[][];
  /** Each round's two phases at the same rate (RATE_SHARE of that round's sync calls a second). */
  paced: Phase[][];
}

/** The same load in both modes: this share of the sync calls a second flat out, sent at that rate. */
const RATE_SHARE = 0.8;

/** The two modes one after the other, in the given order; returned sync first. */
async function both(
  service: Service,
  store: string,
  label: string,
  order: Mode[],
  rate?: number,
): Promise<Phase[]> {
  const phases: Phase[] = [];
  for (const mode of order) {
    const m = await phase(service, mode, DURATION, rate);
    process.stderr.write(
      `${store} ${label} ${mode}: ${m.perSecond.toFixed(0)}/s ${JSON.stringify(m.statuses)} /health p50 ${m.healthP50.toFixed(1)} p99 ${m.healthP99.toFixed(1)} ms, loop max ${m.loopMaxMs.toFixed(0)} ms, CPU ${m.cpuMsPerCall.toFixed(2)} ms a call\n`,
    );
    phases.push(m);
  }
  return phases.sort((a) => (a.mode === 'sync' ? -1 : 1));
}

async function compare(redisUrl: string | undefined): Promise<Comparison> {
  const store = redisUrl ? 'Redis' : 'SQLite';
  // The key's budget of kept answers counts every async call's result for 24 hours: raised so that
  // the rounds measure the calls, not the budget's 429.
  const service = await startService('tools:\n  slow:\n    timeout_ms: 60000\n', redisUrl, {
    IDEMPOTENCY_MAX_ENTRIES_PER_KEY: '100000000',
    IDEMPOTENCY_MAX_BYTES_PER_KEY: String(2 ** 40),
  });
  try {
    // Warm-up: both paths compiled before anything is measured.
    await phase(service, 'sync', 1);
    await phase(service, 'async', 1);
    const rounds: Phase[][] = [];
    const paced: Phase[][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order: Mode[] = round % 2 === 0 ? ['sync', 'async'] : ['async', 'sync'];
      const flat = await both(service, store, `round ${round + 1} flat out`, order);
      rounds.push(flat);
      const rate = Math.round(flat[0].perSecond * RATE_SHARE);
      paced.push(await both(service, store, `round ${round + 1} at ${rate}/s`, order, rate));
    }
    return { store, rounds, paced };
  } finally {
    await service.stop();
  }
}

function compareTable(results: Comparison[]): string[] {
  const lines = [
    `Sync against async: an unlimited key on ${CONNECTIONS} connections, ${DURATION} s a phase, a tool that sleeps ${SLEEP_MS} ms; /health asked every ${PROBE_EVERY_MS} ms meanwhile; median of ${ROUNDS} rounds. Flat out, then both modes at the same rate (${RATE_SHARE} × the round's sync calls a second flat out)`,
    '',
    '| store | load | mode | 2xx calls/s | other answers (all rounds) | /health p50 ms | /health p99 ms | loop max ms | service CPU ms a 2xx call |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const ratios: string[] = [];
  for (const { store, rounds, paced } of results) {
    const rate = median(paced.map(([s]) => s.perSecond));
    for (const [load, set] of [
      ['flat out', rounds],
      [`same rate (~${rate.toFixed(0)}/s)`, paced],
    ] as const) {
      for (const mode of ['sync', 'async'] as Mode[]) {
        const phases = set.map((r) => r.find((p) => p.mode === mode)!);
        const others: Record<string, number> = {};
        for (const p of phases) {
          for (const [status, n] of Object.entries(p.statuses)) {
            if (status !== '200' && status !== '202') others[status] = (others[status] ?? 0) + n;
          }
        }
        lines.push(
          `| ${store} | ${load} | ${mode} | ${median(phases.map((p) => p.perSecond)).toFixed(0)} | ${
            Object.entries(others)
              .map(([s, n]) => `${s}: ${n}`)
              .join(', ') || '0'
          } | ${median(phases.map((p) => p.healthP50)).toFixed(1)} | ${median(phases.map((p) => p.healthP99)).toFixed(1)} | ${median(phases.map((p) => p.loopMaxMs)).toFixed(0)} | ${median(phases.map((p) => p.cpuMsPerCall)).toFixed(2)} |`,
        );
      }
    }
    const accepted = median(rounds.map(([s, a]) => a.perSecond / s.perSecond));
    const p99 = median(paced.map(([s, a]) => a.healthP99 / s.healthP99));
    const p99Flat = median(rounds.map(([s, a]) => a.healthP99 / s.healthP99));
    ratios.push(
      `${store}: accepted async ÷ sync calls flat out ${accepted.toFixed(2)} (goal ≥ 0.5: ${accepted >= 0.5 ? 'met' : 'NOT met'}); /health p99 async ÷ sync at the same rate ${p99.toFixed(2)} (goal ≤ 2: ${p99 <= 2 ? 'met' : 'NOT met'}); flat out ${p99Flat.toFixed(2)} (not the same load: shown, not judged) — medians of the rounds' ratios`,
    );
  }
  return [...lines, '', ...ratios];
}

// ---------------------------------------------------------------- burst: 1,000 calls at once

/** The calls' statuses, read 100 at a time; a read that fails counts as not yet known. */
async function statusesOf(
  base: string,
  auth: Record<string, string>,
  ids: string[],
): Promise<{ id: string; status: string }[]> {
  const views: { id: string; status: string }[] = [];
  for (let at = 0; at < ids.length; at += 100) {
    views.push(
      ...(await Promise.all(
        ids.slice(at, at + 100).map(async (id) => {
          try {
            const res = await fetch(`${base}/api/v1/invocations/${id}`, { headers: auth });
            return { id, status: ((await res.json()) as { status: string }).status };
          } catch {
            return { id, status: 'running' };
          }
        }),
      )),
    );
  }
  return views;
}

async function runScenario(scenario: Scenario, redisUrl: string | undefined): Promise<string> {
  const service = await startService(scenario.tools, redisUrl);
  const pid = service.pid;
  try {
    const base = service.base;
    const auth = { authorization: `Bearer ${service.adminKey}` };
    await fetch(`${base}/metrics`);
    await sleep(1000);
    const rssBefore = rssMb(pid);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(pid))), 200);
    const started = performance.now();
    const latencies: number[] = [];
    const answers = await Promise.all(
      Array.from({ length: CALLS }, async (_, i) => {
        const t0 = performance.now();
        try {
          const res = await fetch(`${base}/api/v1/services/slow`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json', prefer: 'respond-async' },
            body: JSON.stringify({ label: `c${i}`, ms: WORK_MS, steps: 5 }),
          });
          latencies.push(performance.now() - t0);
          const body = (await res.json()) as { id?: string };
          return { status: res.status, id: body.id };
        } catch {
          return { status: 0, id: undefined };
        }
      }),
    );
    const statuses: Record<string, number> = {};
    for (const { status } of answers) statuses[status] = (statuses[status] ?? 0) + 1;
    const accepted = answers.filter((a) => a.status === 202).map((a) => a.id as string);
    let pending = [...accepted];
    const end = performance.now() + 60_000 + WORK_MS;
    while (pending.length && performance.now() < end) {
      await sleep(500);
      const views = await statusesOf(base, auth, pending);
      pending = views
        .filter((v) => v.status === 'queued' || v.status === 'running')
        .map((v) => v.id);
    }
    const allDoneSeconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const finals = (await statusesOf(base, auth, accepted)).map((v) => v.status);
    const lag = lagSeconds(await (await fetch(`${base}/metrics`)).text());
    await sleep(2000);
    const rssAfter = rssMb(pid);
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? NaN;
    const succeeded = finals.filter((s) => s === 'succeeded').length;
    const lost = accepted.length - succeeded;
    return `| ${scenario.name}, ${redisUrl ? 'Redis' : 'SQLite'} | ${CALLS} | ${statuses['202'] ?? 0} | ${statuses['503'] ?? 0} | ${
      Object.entries(statuses)
        .filter(([s]) => s !== '202' && s !== '503')
        .map(([s, n]) => `${s}: ${n}`)
        .join(', ') || '0'
    } | ${succeeded} | ${lost} | ${p99.toFixed(0)} | ${allDoneSeconds.toFixed(1)} | ${rssBefore.toFixed(0)} → ${rssPeak.toFixed(0)} → ${rssAfter.toFixed(0)} | ${(lag * 1000).toFixed(1)} |`;
  } finally {
    await service.stop();
  }
}

async function main(): Promise<void> {
  installCleanup();
  const redis = await startRedis();
  const host = machine();
  try {
    console.log(`machine: ${JSON.stringify(host)}\n`);
    if (PARTS.includes('compare')) {
      const results = [await compare(undefined)];
      if (redis) results.push(await compare(redis.url));
      for (const line of compareTable(results)) console.log(line);
      console.log('');
    }
    if (PARTS.includes('burst')) {
      const rows: string[] = [];
      for (const scenario of SCENARIOS) {
        rows.push(await runScenario(scenario, undefined));
        if (redis) rows.push(await runScenario(scenario, redis.url));
      }
      console.log(
        `${CALLS} long-running calls at once (Prefer: respond-async), each ${WORK_MS} ms of work, one instance\n`,
      );
      console.log(
        '| scenario | calls | 202 | 503 | other | succeeded | lost | 202 p99 ms | all done s | RSS MB before → peak → after | event loop max delay ms |',
      );
      console.log('|---|---|---|---|---|---|---|---|---|---|---|');
      for (const row of rows) console.log(row);
    }
    if (PARTS.includes('ledger')) {
      const withRedis = redis && process.env.BENCH_LEDGER_REDIS !== '0';
      const rows = [
        ...(await ledgerLoad(undefined)),
        ...(await ledgerLoad(undefined, 60, ['doctor'])),
        ...(withRedis ? await ledgerLoad(redis.url) : []),
        ...(withRedis ? await ledgerLoad(redis.url, 60, ['doctor']) : []),
      ];
      console.log('');
      for (const line of [...LEDGER_TABLE_HEAD, ...rows]) console.log(line);
    }
    console.log(`\nload average at the end: ${machine().loadavg1}`);
  } finally {
    await redis?.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
