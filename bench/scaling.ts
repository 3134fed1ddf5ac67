/**
 * Scaling benchmark (docs/scaling.md): on this machine, against 127.0.0.1 only,
 *   (1) the Redis commands one tool call costs (INFO commandstats around N calls) and the Redis CPU
 *       time per call, for greet and for greet with an Idempotency-Key;
 *   (2) greet's req/s with one instance, then with two instances on the same Redis (autocannon, the
 *       same total connections split between them), with Redis's CPU share meanwhile;
 *   (3) what a Sentinel failover loses: two instances under load through three Sentinels, the
 *       master killed (SIGKILL), then the calls answered 200 against the count the promoted replica
 *       holds.
 * Every server is a child process on a free loopback port; every loop is bounded.
 *
 * Run with `npm run bench:scaling` (builds first). Settings: BENCH_CONNECTIONS (16), BENCH_DURATION
 * (8 s), BENCH_ROUNDS (3), BENCH_WARMUP (3 s), BENCH_CALLS (500), BENCH_FAILOVERS (3; 0 skips (3)).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Redis from 'ioredis';
import { parseInfo } from '../src/kernel/store/redis/redis.connection';
import { SentinelTopology, until } from '../test/support/redis-topology';
import {
  autocannon,
  CannonResult,
  freePort,
  installCleanup,
  machine,
  median,
  num,
  ROOT,
  sleep,
  startRedis,
  stop,
  tempDir,
  trackChild,
} from './lib';

const CONNECTIONS = num('BENCH_CONNECTIONS', 16);
const DURATION = num('BENCH_DURATION', 8);
const ROUNDS = num('BENCH_ROUNDS', 3);
const WARMUP = num('BENCH_WARMUP', 3);
const CALLS = num('BENCH_CALLS', 500);
const FAILOVERS = num('BENCH_FAILOVERS', 3);
const BODY = JSON.stringify({ name: 'Alice', shout: true });
/** No plan limit the load can reach: every call passes every check and is counted. */
const UNLIMITED = { PLAN_UNLIMITED_RATE_LIMIT: '100000000' };

interface Instance {
  child: ChildProcess;
  url: string;
}

/** dist/main.js on a free port, ready when /health/ready answers 200. */
async function startInstance(env: Record<string, string>, dataDir: string): Promise<Instance> {
  const port = await freePort();
  const child = trackChild(
    spawn(process.execPath, ['dist/main.js'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        ...env,
        ...UNLIMITED,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  await until(
    async () => (await fetch(`${url}/health/ready`)).status === 200,
    `${url} ready`,
    30_000,
  );
  return { child, url };
}

const adminKey = (dataDir: string) => readFileSync(join(dataDir, 'initial-api-key'), 'utf8').trim();

async function createKey(instance: Instance, admin: string): Promise<string> {
  const res = await fetch(`${instance.url}/api/v1/auth/api-keys`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${admin}` },
    body: JSON.stringify({ name: 'bench', scope_template: 'standard', plan: 'unlimited' }),
  });
  if (res.status !== 201) throw new Error(`key creation: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}

const greet = (instance: Instance, key: string, headers: Record<string, string> = {}) =>
  fetch(`${instance.url}/api/v1/services/greet`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}`, ...headers },
    body: BODY,
  });

const redisCpuSeconds = async (admin: Redis) => {
  const cpu = parseInfo(await admin.info('cpu'));
  return Number(cpu.used_cpu_user) + Number(cpu.used_cpu_sys);
};

/** (1) Commands per call, by command, from INFO commandstats around `CALLS` sequential calls. */
async function commandsPerCall(admin: Redis, instance: Instance, key: string, idempotent: boolean) {
  for (let i = 0; i < 50; i++) await greet(instance, key); // warm: scripts loaded, last-used written
  await admin.config('RESETSTAT');
  const cpuBefore = await redisCpuSeconds(admin);
  for (let i = 0; i < CALLS; i++) {
    const res = await greet(
      instance,
      key,
      idempotent ? { 'Idempotency-Key': `bench-${i}-${Date.now()}` } : {},
    );
    if (res.status !== 200) throw new Error(`greet answered ${res.status}`);
    await res.arrayBuffer();
  }
  const cpuAfter = await redisCpuSeconds(admin);
  const stats = await admin.info('commandstats');
  const perCommand = Object.fromEntries(
    [...stats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)]
      .map(([, command, calls]) => [command, Number(calls) / CALLS] as const)
      .filter(([command]) => !['config', 'info'].includes(command)),
  );
  const total = Object.values(perCommand).reduce((a, b) => a + b, 0);
  return {
    perCommand,
    total: +total.toFixed(2),
    redisCpuUsPerCall: +(((cpuAfter - cpuBefore) / CALLS) * 1e6).toFixed(1),
  };
}

const shoot = (instance: Instance, key: string, connections: number, duration: number) =>
  autocannon({
    url: `${instance.url}/api/v1/services/greet`,
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: BODY,
    connections,
    duration,
  });

/** (2) req/s of the instances together (connections split evenly), median of ROUNDS, Redis CPU share. */
async function throughput(admin: Redis, instances: Instance[], key: string) {
  const each = Math.max(1, Math.floor(CONNECTIONS / instances.length));
  await Promise.all(instances.map((i) => shoot(i, key, each, WARMUP)));
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const cpuBefore = await redisCpuSeconds(admin);
    const results: CannonResult[] = await Promise.all(
      instances.map((i) => shoot(i, key, each, DURATION)),
    );
    const cpu = (await redisCpuSeconds(admin)) - cpuBefore;
    const rps = results.reduce((sum, res) => sum + res.requests.average, 0);
    const non2xx = results.reduce((sum, res) => sum + res.non2xx, 0);
    const p99 = Math.max(...results.map((res) => res.latency.p99));
    rounds.push({ rps: Math.round(rps), p99, non2xx, redisCpuShare: +(cpu / DURATION).toFixed(3) });
    process.stderr.write(
      `  ${instances.length} instance(s) round ${r + 1}: ${Math.round(rps)} req/s, Redis CPU ${((cpu / DURATION) * 100).toFixed(0)}%\n`,
    );
  }
  return {
    instances: instances.length,
    connectionsEach: each,
    rps: median(rounds.map((r) => r.rps)),
    redisCpuShare: median(rounds.map((r) => r.redisCpuShare)),
    rounds,
  };
}

/** (3) One failover under load: the calls answered 200 against the count the promoted master holds. */
async function failoverLoss() {
  const topology = await SentinelTopology.start({ downAfterMs: 1000, failoverTimeoutMs: 2000 });
  const dataDir = tempDir('tis-bench-failover-');
  const instances: Instance[] = [];
  try {
    const env = { ...topology.env(), REDIS_KEY_PREFIX: 'bench:' };
    instances.push(await startInstance(env, dataDir), await startInstance(env, dataDir));
    const key = await createKey(instances[0], adminKey(dataDir));
    const statuses = new Map<number, number>();
    /** One call, its status tallied (-1: no answer). */
    const call = async (instance: Instance) => {
      let status = -1;
      try {
        const res = await greet(instance, key);
        status = res.status;
        await res.arrayBuffer();
      } catch {
        // counted as no answer
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      return status;
    };
    let stopLoad = false;
    const worker = async (instance: Instance) => {
      for (let i = 0; i < 1_000_000 && !stopLoad; i++) {
        if ((await call(instance)) !== 200) await sleep(10);
      }
    };
    const workers = [0, 1, 0, 1, 0, 1, 0, 1].map((i) => worker(instances[i]));
    await sleep(3000);
    const beforeKill = statuses.get(200) ?? 0;
    const killedAt = Date.now();
    await topology.failOver();
    const promotedAfterMs = Date.now() - killedAt;
    await until(async () => {
      const answers = await Promise.all(instances.map(call));
      return answers.every((status) => status === 200);
    }, 'both instances serving again');
    const servingAfterMs = Date.now() - killedAt;
    await sleep(2000);
    stopLoad = true;
    await Promise.all(workers);
    const usage = await fetch(`${instances[0].url}/api/v1/usage`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    const used = ((await usage.json()) as { used: number }).used;
    // A lower bound of what was lost: a call cut off by the kill may have been counted, not served.
    const served = statuses.get(200) ?? 0;
    return {
      callsPerSecondBeforeKill: Math.round(beforeKill / 3),
      promotedAfterMs,
      servingAfterMs,
      served,
      unavailable: statuses.get(503) ?? 0,
      otherStatuses: Object.fromEntries([...statuses].filter(([s]) => s !== 200 && s !== 503)),
      counted: used,
      lostAtLeast: Math.max(0, served - used),
    };
  } finally {
    await Promise.all(instances.map((i) => stop(i.child)));
    await topology.destroy();
  }
}

async function main(): Promise<void> {
  installCleanup();
  const redis = await startRedis();
  if (!redis) throw new Error('redis-server is needed');
  const admin = new Redis(redis.url);
  const dataDir = tempDir('tis-bench-scaling-');
  const env = { REDIS_URL: redis.url };
  const report: Record<string, unknown> = { date: new Date().toISOString(), machine: machine() };
  try {
    const a = await startInstance(env, dataDir);
    const key = await createKey(a, adminKey(dataDir));
    report.commands = {
      greet: await commandsPerCall(admin, a, key, false),
      greetIdempotent: await commandsPerCall(admin, a, key, true),
    };
    process.stderr.write(`commands per call: ${JSON.stringify(report.commands)}\n`);
    const one = await throughput(admin, [a], key);
    const b = await startInstance(env, dataDir);
    const two = await throughput(admin, [a, b], key);
    report.throughput = { one, two, ratio: +(two.rps / one.rps).toFixed(2) };
    await Promise.all([stop(a.child), stop(b.child)]);
  } finally {
    admin.disconnect();
    await redis.stop();
  }
  const failovers = [];
  for (let i = 0; i < FAILOVERS; i++) {
    failovers.push(await failoverLoss());
    process.stderr.write(`failover ${i + 1}: ${JSON.stringify(failovers.at(-1))}\n`);
  }
  report.failovers = failovers;
  report.machine = {
    ...machine(),
    loadavg1AtStart: (report.machine as { loadavg1: number }).loadavg1,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/scaling.json'), JSON.stringify(report, null, 2));
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
