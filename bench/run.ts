/**
 * Load benchmark: in one run, on this machine, measures
 *   (a) a bare Node http server answering greet's JSON (the ceiling),
 *   (b) a bare NestJS express app with one POST route (the framework's floor),
 *   (c) this service's greet through the whole pipeline, on SQLite, and on Redis when redis-server
 *       is available,
 * each with fixed connections and duration, a warm-up and several rounds (the median is quoted),
 * plus RSS at rest and after load, RSS growth over a fixed 200,000 requests, and cold start to the
 * first 200. Every target is a separate process on 127.0.0.1; every loop is bounded.
 *
 * Run with `npm run bench` (builds first). Settings: BENCH_CONNECTIONS (16), BENCH_DURATION (8 s),
 * BENCH_ROUNDS (3), BENCH_WARMUP (3 s), BENCH_SOAK_REQUESTS (200000; 0 skips the soak).
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  autocannon,
  freePort,
  machine,
  median,
  num,
  ROOT,
  rssMb,
  sleep,
  startRedis,
  stop,
} from './lib';

const CONNECTIONS = num('BENCH_CONNECTIONS', 16);
const DURATION = num('BENCH_DURATION', 8);
const ROUNDS = num('BENCH_ROUNDS', 3);
const WARMUP = num('BENCH_WARMUP', 3);
const SOAK = num('BENCH_SOAK_REQUESTS', 200_000);
const BODY = JSON.stringify({ name: 'Alice', shout: true });

interface Target {
  name: string;
  label: string;
  start(port: number): ChildProcess;
  headers: Record<string, string>;
  cleanup?: () => void;
}

interface Measured {
  name: string;
  label: string;
  rps: number;
  p50: number;
  p99: number;
  rounds: { rps: number; p50: number; p99: number; non2xx: number; errors: number }[];
  coldStartMs: number;
  rssRestMb: number;
  rssAfterMb: number;
  soak?: {
    requests: number;
    rssBeforeMb: number;
    rssAfterMb: number;
    growthMb: number;
    non2xx: number;
  };
}

async function firstOk(
  url: string,
  headers: Record<string, string>,
  startedAt: number,
): Promise<number> {
  for (let i = 0; i < 600; i++) {
    try {
      const res = await fetch(url, { method: 'POST', headers, body: BODY });
      if (res.status === 200) return Date.now() - startedAt;
    } catch {
      // not listening yet
    }
    await sleep(5);
  }
  throw new Error(`no 200 from ${url} within 3 s of polling`);
}

const shoot = (url: string, headers: Record<string, string>, opts: Record<string, unknown>) =>
  autocannon({ url, method: 'POST', headers, body: BODY, connections: CONNECTIONS, ...opts });

async function measure(target: Target, soak: boolean): Promise<Measured> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/api/v1/services/greet`;
  const startedAt = Date.now();
  const child = target.start(port);
  child.stderr?.on('data', (d: Buffer) => process.stderr.write(`[${target.name}] ${d.toString()}`));
  try {
    const coldStartMs = await firstOk(url, target.headers, startedAt);
    await sleep(1000);
    const rssRestMb = rssMb(child.pid!);
    await shoot(url, target.headers, { duration: WARMUP });
    const rounds = [];
    for (let i = 0; i < ROUNDS; i++) {
      const r = await shoot(url, target.headers, { duration: DURATION });
      rounds.push({
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors,
      });
      process.stderr.write(
        `  ${target.name} round ${i + 1}: ${Math.round(r.requests.average)} req/s, p99 ${r.latency.p99} ms, non-2xx ${r.non2xx}\n`,
      );
    }
    const rssAfterMb = rssMb(child.pid!);
    const result: Measured = {
      name: target.name,
      label: target.label,
      rps: Math.round(median(rounds.map((r) => r.rps))),
      p50: median(rounds.map((r) => r.p50)),
      p99: median(rounds.map((r) => r.p99)),
      rounds,
      coldStartMs,
      rssRestMb,
      rssAfterMb,
    };
    if (soak && SOAK > 0) {
      const rssBeforeMb = rssMb(child.pid!);
      const r = await shoot(url, target.headers, { amount: SOAK });
      await sleep(1000);
      const after = rssMb(child.pid!);
      result.soak = {
        requests: r.requests.total,
        rssBeforeMb,
        rssAfterMb: after,
        growthMb: Math.round((after - rssBeforeMb) * 10) / 10,
        non2xx: r.non2xx,
      };
    }
    return result;
  } finally {
    await stop(child);
    target.cleanup?.();
  }
}

const tsNode = (file: string, port: number, env: Record<string, string> = {}) =>
  spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', file], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });

/** A data directory with one unlimited bench key whose rate limit the load cannot reach. */
function prepareService(env: Record<string, string>): { dir: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tis-bench-'));
  const out = execFileSync(
    process.execPath,
    [
      'dist/cli.js',
      'keys',
      'create',
      '--name',
      'bench',
      '--template',
      'standard',
      '--plan',
      'unlimited',
      '--rate-limit',
      '100000000',
      '--json',
    ],
    { cwd: ROOT, env: { ...process.env, ...env, DATA_DIR: dir }, encoding: 'utf8' },
  );
  return { dir, key: (JSON.parse(out) as { key: string }).key };
}

function serviceTarget(name: string, label: string, env: Record<string, string>): Target {
  const { dir, key } = prepareService(env);
  return {
    name,
    label,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    start: (port) =>
      spawn(process.execPath, ['dist/main.js'], {
        cwd: ROOT,
        env: { ...process.env, ...env, DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function main(): Promise<void> {
  const json = { 'Content-Type': 'application/json' };
  const bare = (name: string, label: string, file: string): Target => ({
    name,
    label,
    headers: json,
    start: (port) => tsNode(file, port),
  });
  const results: Measured[] = [];
  results.push(
    await measure(bare('bare-node', '(a) bare Node http', 'bench/targets/bare-node.ts'), false),
  );
  results.push(
    await measure(
      bare('bare-nest', '(b) bare NestJS (express)', 'bench/targets/bare-nest.ts'),
      false,
    ),
  );
  results.push(
    await measure(serviceTarget('service-sqlite', '(c) greet, full pipeline, SQLite', {}), true),
  );
  const redis = await startRedis();
  if (redis) {
    try {
      const env = { REDIS_URL: redis.url };
      results.push(
        await measure(
          serviceTarget('service-redis', '(c) greet, full pipeline, Redis', env),
          false,
        ),
      );
    } finally {
      await redis.stop();
    }
  }
  const nest = results.find((r) => r.name === 'bare-nest')!;
  const node = results.find((r) => r.name === 'bare-node')!;
  const report = {
    date: new Date().toISOString(),
    machine: machine(),
    settings: {
      connections: CONNECTIONS,
      durationS: DURATION,
      rounds: ROUNDS,
      warmupS: WARMUP,
      soakRequests: SOAK,
    },
    results,
    ratios: Object.fromEntries(
      results
        .filter((r) => r.name.startsWith('service'))
        .map((r) => [
          r.name,
          {
            vsNest: +(r.rps / nest.rps).toFixed(2),
            vsNode: +(r.rps / node.rps).toFixed(2),
            p99VsNest: +(r.p99 / nest.p99).toFixed(2),
          },
        ]),
    ),
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/latest.json'), JSON.stringify(report, null, 2));
  const lines = [
    '| target | req/s (median) | p50 ms | p99 ms | cold start ms | RSS rest MB | RSS after MB |',
    '|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.label} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.coldStartMs} | ${r.rssRestMb} | ${r.rssAfterMb} |`,
    ),
    '',
    ...Object.entries(report.ratios).map(
      ([name, q]) =>
        `- ${name}: ${q.vsNest} × bare NestJS, ${q.vsNode} × bare Node, p99 ${q.p99VsNest} × bare NestJS's`,
    ),
    ...results
      .filter((r) => r.soak)
      .map(
        (r) =>
          `- ${r.name} soak: ${r.soak!.requests} requests, RSS ${r.soak!.rssBeforeMb} → ${r.soak!.rssAfterMb} MB (${r.soak!.growthMb} MB), non-2xx ${r.soak!.non2xx}`,
      ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
