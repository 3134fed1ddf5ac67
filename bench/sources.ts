/**
 * `npm run bench:sources`: an upstream's `echo` through the service against the same upstream
 * called directly (issue 61). The upstream is the sources' test server made with the official SDK
 * 1.x (test/support/upstreams/sdk1-server.mjs, stateless Streamable HTTP); the service is the
 * built `dist/main.js` with it as the source `up` (CONFIG_FILE), on SQLite. Three ways of calling
 * `echo`, each in a phase of its own:
 *
 * - `direct`: MCP `tools/call` `echo` POSTed to the upstream;
 * - `rest`: `POST /api/v1/services/up_echo` on the service, with an `unlimited` key;
 * - `mcp`: MCP `tools/call` `up_echo` POSTed to the service's `/mcp`, with the same key.
 *
 * Each phase is autocannon in a process of its own at a lower priority (`nice -n 10`), twice:
 * flat out on BENCH_SOURCES_CONNECTIONS (16) connections for BENCH_SOURCES_DURATION (5) s (the
 * throughput), then on one connection for BENCH_SOURCES_LATENCY_DURATION (3) s (the p50 of one
 * call at a time: what the service adds to a call). BENCH_SOURCES_ROUNDS (3) rounds, the three
 * ways in a rotated order each round; reported: each way's median over the rounds, and the two
 * figures of the issue: throughput through the service ÷ direct (goal ≥ 0.8) and the p50 added
 * (goal ≤ 2 ms). Every answer must be a 200 (counted otherwise). Loopback only. BENCH_APP_DIR
 * runs another build's `dist/main.js` (the upstream and the load stay this checkout's).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  CannonResult,
  freePort,
  installCleanup,
  machine,
  median,
  num,
  ROOT,
  sleep,
  tempDir,
  trackChild,
} from './lib';

const CONNECTIONS = num('BENCH_SOURCES_CONNECTIONS', 16);
const DURATION = num('BENCH_SOURCES_DURATION', 5);
const LATENCY_DURATION = num('BENCH_SOURCES_LATENCY_DURATION', 3);
const ROUNDS = num('BENCH_SOURCES_ROUNDS', 3);
/** A directory holding another build's dist/main.js, to compare builds (default: this one). */
const APP_DIR = process.env.BENCH_APP_DIR ?? ROOT;
const WAYS = ['direct', 'rest', 'mcp'] as const;
type Way = (typeof WAYS)[number];

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};
const callOf = (name: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: { text: 'hello' } },
  });

/** The upstream: the SDK 1.x test server over stateless Streamable HTTP. */
async function startUpstream(): Promise<string> {
  const child = trackChild(
    spawn(process.execPath, [join(ROOT, 'test/support/upstreams/sdk1-server.mjs'), 'http'], {
      env: { PATH: process.env.PATH ?? '', PORT: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the upstream exited (${code})`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const found = /^listening (\d+)$/.exec(line);
      if (found) resolve(Number(found[1]));
    });
  });
  return `http://127.0.0.1:${port}/mcp`;
}

/** The built service with the upstream as the source `up`; its base URL and an unlimited key. */
async function startService(upstream: string): Promise<{ base: string; key: string }> {
  const dir = tempDir('tis-sources-');
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    `sources:\n  up:\n    kind: mcp\n    url: ${upstream}\n    max_concurrency: 256\n`,
  );
  const port = await freePort();
  const child = trackChild(
    spawn(process.execPath, ['dist/main.js'], {
      cwd: APP_DIR,
      env: {
        ...process.env,
        DATA_DIR: dir,
        CONFIG_FILE: config,
        PORT: String(port),
        HOST: '127.0.0.1',
        SOURCE_ALLOW_PRIVATE: 'true',
        PLAN_UNLIMITED_RATE_LIMIT: '100000000',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  const admin = await waitForKey(dir, base, child.pid!);
  const created = await fetch(`${base}/api/v1/auth/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
    body: JSON.stringify({ name: 'bench', scope_template: 'standard', plan: 'unlimited' }),
  });
  if (created.status !== 201) throw new Error(`creating the key: ${created.status}`);
  const { key } = (await created.json()) as { key: string };
  // The source is listed in the background: wait until its tool answers.
  for (let i = 0; i < 300; i++) {
    const res = await fetch(`${base}/api/v1/services/up_echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ text: 'ready?' }),
    });
    if (res.status === 200) return { base, key };
    await sleep(100);
  }
  throw new Error('the source up did not become ready within 30 s');
}

async function waitForKey(dir: string, base: string, pid: number): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const file = join(dir, 'initial-api-key');
    const up = await fetch(`${base}/health`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (up && existsSync(file)) return readFileSync(file, 'utf8').trim();
    await sleep(50);
  }
  throw new Error(`the service (pid ${pid}) did not start within 30 s`);
}

/** autocannon in a process of its own, at a lower priority; its result as JSON. */
function runLoad(options: Record<string, unknown>): Promise<CannonResult> {
  const script = `require(process.env.AUTOCANNON_MODULE)(JSON.parse(process.env.LOAD_OPTIONS))
    .then((result) => process.stdout.write(JSON.stringify(result)));`;
  const child = trackChild(
    spawn('nice', ['-n', '10', process.execPath, '-e', script], {
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
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as CannonResult)
        : reject(new Error(`the load's client exited (${code})`)),
    ),
  );
}

function requestOf(way: Way, upstream: string, service: { base: string; key: string }) {
  const auth = { authorization: `Bearer ${service.key}` };
  if (way === 'direct') return { url: upstream, headers: MCP_HEADERS, body: callOf('echo') };
  if (way === 'mcp') {
    return {
      url: `${service.base}/mcp`,
      headers: { ...MCP_HEADERS, ...auth },
      body: callOf('up_echo'),
    };
  }
  return {
    url: `${service.base}/api/v1/services/up_echo`,
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({ text: 'hello' }),
  };
}

interface Figures {
  rps: number;
  p50: number;
  other: number;
}

async function measure(way: Way, request: ReturnType<typeof requestOf>): Promise<Figures> {
  const base = { ...request, method: 'POST' };
  const flat = await runLoad({ ...base, connections: CONNECTIONS, duration: DURATION });
  const one = await runLoad({ ...base, connections: 1, duration: LATENCY_DURATION });
  const other = [flat, one].reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0);
  const figures = { rps: flat.requests.average, p50: one.latency.p50, other };
  process.stderr.write(`  ${way}: ${JSON.stringify(figures)}\n`);
  return figures;
}

async function main(): Promise<void> {
  installCleanup();
  const upstream = await startUpstream();
  const service = await startService(upstream);
  const results: Record<Way, Figures[]> = { direct: [], rest: [], mcp: [] };
  for (let round = 0; round < ROUNDS; round++) {
    process.stderr.write(`round ${round + 1}/${ROUNDS}\n`);
    const order = WAYS.map((_, i) => WAYS[(i + round) % WAYS.length]);
    for (const way of order)
      results[way].push(await measure(way, requestOf(way, upstream, service)));
  }
  const summary = Object.fromEntries(
    WAYS.map((way) => [
      way,
      {
        rps: Math.round(median(results[way].map((r) => r.rps))),
        p50Ms: median(results[way].map((r) => r.p50)),
        otherAnswers: results[way].reduce((sum, r) => sum + r.other, 0),
      },
    ]),
  ) as Record<Way, { rps: number; p50Ms: number; otherAnswers: number }>;
  const ratio = (way: Way) => Math.round((summary[way].rps / summary.direct.rps) * 100) / 100;
  const added = (way: Way) => Math.round((summary[way].p50Ms - summary.direct.p50Ms) * 100) / 100;
  const report = {
    machine: machine(),
    app: APP_DIR,
    settings: {
      connections: CONNECTIONS,
      duration: DURATION,
      latencyDuration: LATENCY_DURATION,
      rounds: ROUNDS,
    },
    summary,
    throughputRatio: { rest: ratio('rest'), mcp: ratio('mcp'), goal: 0.8 },
    p50AddedMs: { rest: added('rest'), mcp: added('mcp'), goal: 2 },
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  printTable(report);
}

function printTable(report: {
  summary: Record<Way, { rps: number; p50Ms: number; otherAnswers: number }>;
  throughputRatio: Record<'rest' | 'mcp', number>;
  p50AddedMs: Record<'rest' | 'mcp', number>;
}): void {
  const lines = [
    '| way | calls/s (flat out) | × direct | p50 one at a time | added p50 | non-200 |',
    '|---|---:|---:|---:|---:|---:|',
    ...WAYS.map((way) => {
      const s = report.summary[way];
      const x = way === 'direct' ? '1' : String(report.throughputRatio[way]);
      const plus = way === 'direct' ? '' : `${report.p50AddedMs[way]} ms`;
      return `| ${way} | ${s.rps} | ${x} | ${s.p50Ms} ms | ${plus} | ${s.otherAnswers} |`;
    }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
