/**
 * `npm run bench:cpu`: the service's own CPU time per request, this build against another
 * (BENCH_BASELINE_DIR, built by bench/build-baseline.sh), for the pipeline targets BENCH_TARGETS
 * names (ids as in `npm run bench`; default express-sqlite,fastify-sqlite).
 *
 * Throughput on a shared two-core machine swings by half from one minute to the next (another
 * tenant, the load generator itself); the CPU a process spends serving a fixed number of requests
 * swings far less, because what it measures is the service's work, not the machine's mood. Each
 * target and its twin serve BENCH_CPU_REQUESTS requests (30,000) at 32 connections, in
 * BENCH_CPU_PAIRS pairs (6) side by side, their order alternating; the figure is the process's
 * user + system time from /proc/<pid>/stat over those requests, per request, in µs. Reported: each
 * build's median, the ratio after ÷ before, and the pairs' ratios (median, min–max).
 */
import { readFileSync } from 'node:fs';
import { autocannon, installCleanup, median, num, ROOT, startRedis, stop } from './lib';
import { pipelineSpecs } from './kinds';
import { start, type Running } from './measure';
import { buildAt, serviceTarget } from './targets';

const REQUESTS = num('BENCH_CPU_REQUESTS', 30_000);
const PAIRS = num('BENCH_CPU_PAIRS', 6);
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds of a process so far (/proc/<pid>/stat, fields 14 and 15). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** µs of the service's CPU per request, over REQUESTS requests. */
async function cpuPerRequest(r: Running): Promise<number> {
  const before = cpuSeconds(r.child.pid!);
  const res = await autocannon({
    url: r.url,
    method: 'POST',
    headers: r.target.headers,
    body: r.target.body,
    connections: 32,
    amount: REQUESTS,
  });
  if (res.non2xx || res.errors)
    throw new Error(`${r.target.id}: ${res.non2xx} non-2xx, ${res.errors} errors`);
  return ((cpuSeconds(r.child.pid!) - before) / res.requests.total) * 1e6;
}

async function main(): Promise<void> {
  installCleanup();
  const baseDir = process.env.BENCH_BASELINE_DIR;
  if (!baseDir)
    throw new Error('BENCH_BASELINE_DIR: the build to compare with (bench/build-baseline.sh)');
  const ids = (process.env.BENCH_TARGETS ?? 'express-sqlite,fastify-sqlite').split(',');
  const specs = pipelineSpecs().filter((spec) => ids.includes(spec.id));
  const after = buildAt(ROOT, 'this build');
  const before = buildAt(baseDir, 'baseline');
  const needsRedis = specs.some((spec) => spec.store === 'redis');
  const redis = needsRedis ? [await startRedis(), await startRedis()] : [];
  if (needsRedis && !redis[0]) throw new Error('redis-server is not on the PATH');
  const rows: string[] = [];
  for (const spec of specs) {
    const targets = await Promise.all([
      serviceTarget(spec, after, false, redis[0]?.url, undefined),
      serviceTarget(spec, before, true, redis[1]?.url, undefined),
    ]);
    const running = [await start(targets[0]), await start(targets[1])];
    // Warm both up: the JIT, the kept key records, the connections.
    for (const r of running) await cpuPerRequest(r);
    const figures: [number[], number[]] = [[], []];
    for (let pair = 0; pair < PAIRS; pair++) {
      const order = pair % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) figures[i].push(await cpuPerRequest(running[i]));
      process.stderr.write(
        `  ${spec.id} pair ${pair + 1}: ${figures[0].at(-1)!.toFixed(1)} vs ${figures[1].at(-1)!.toFixed(1)} µs\n`,
      );
    }
    const ratios = figures[0].map((x, i) => x / figures[1][i]);
    const [a, b] = [median(figures[0]), median(figures[1])];
    rows.push(
      `| ${spec.id} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a / b).toFixed(3)} × | ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}) |`,
    );
    for (const r of running) await stop(r.child);
    for (const t of targets) await t.cleanup?.();
  }
  for (const r of redis) await r?.stop();
  console.log(
    `CPU per request: ${REQUESTS} requests × ${PAIRS} pairs, 32 connections; after = this build, before = ${before.label}\n`,
  );
  console.log('| target | µs after | µs before | after ÷ before | pairs (median, min–max) |');
  console.log('|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
