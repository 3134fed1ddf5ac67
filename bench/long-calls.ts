/**
 * `npm run bench:long-calls`: BENCH_LONG_CALLS (1,000) long-running calls started at once on one
 * instance, each a test tool that works 5 s (`slow` of test/support/runtime-tools.module.ts, the
 * service started by test/support/runtime-server.ts), with `Prefer: respond-async`. Every call must
 * be accepted (202) or refused at capacity (503), none lost: each accepted one is read back
 * `succeeded`. Reported per scenario: the answers by status, the 202s' latency, how long until
 * every accepted call had finished, the service's RSS before, at its peak and after, and the event
 * loop's longest delay meanwhile (prom-client's `nodejs_eventloop_lag_max_seconds`).
 *
 * Scenarios: the tool's defaults (64 running, 64 waiting: most calls refused at once), and
 * capacity for all of them (`tools.slow.concurrency: 1000` in CONFIG_FILE). SQLite, and Redis
 * when redis-server is on the PATH.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  installCleanup,
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

const CALLS = num('BENCH_LONG_CALLS', 1000);
const WORK_MS = num('BENCH_LONG_CALL_MS', 5000);

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

async function runScenario(scenario: Scenario, redisUrl: string | undefined): Promise<string> {
  const dir = tempDir('tis-long-');
  const config = join(dir, 'config.yaml');
  writeFileSync(config, scenario.tools);
  const env = {
    DATA_DIR: dir,
    CONFIG_FILE: config,
    PLAN_UNLIMITED_RATE_LIMIT: '100000000',
    HTTP_MAX_CONNECTIONS: String(CALLS + 100),
    ...(redisUrl ? { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `long-${Date.now()}:` } : {}),
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
  try {
    const line = await new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the service exited (${code})`)));
      createInterface({ input: child.stdout }).on('line', (text) => {
        if (text.startsWith('{"port"')) resolve(text);
      });
    });
    const { port, adminKey } = JSON.parse(line) as { port: number; adminKey: string };
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${adminKey}` };
    await fetch(`${base}/metrics`);
    await sleep(1000);
    const rssBefore = rssMb(child.pid!);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(child.pid!))), 200);
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
      const views = await Promise.all(
        pending.map(async (id) => {
          const res = await fetch(`${base}/api/v1/invocations/${id}`, { headers: auth });
          return { id, status: ((await res.json()) as { status: string }).status };
        }),
      );
      pending = views
        .filter((v) => v.status === 'queued' || v.status === 'running')
        .map((v) => v.id);
    }
    const allDoneSeconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const finals = await Promise.all(
      accepted.map(async (id) => {
        const res = await fetch(`${base}/api/v1/invocations/${id}`, { headers: auth });
        return ((await res.json()) as { status: string }).status;
      }),
    );
    const lag = lagSeconds(await (await fetch(`${base}/metrics`)).text());
    await sleep(2000);
    const rssAfter = rssMb(child.pid!);
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
    await stop(child);
    removeDir(dir);
  }
}

async function main(): Promise<void> {
  installCleanup();
  const redis = await startRedis();
  const rows: string[] = [];
  for (const scenario of SCENARIOS) {
    rows.push(await runScenario(scenario, undefined));
    if (redis) rows.push(await runScenario(scenario, redis.url));
  }
  await redis?.stop();
  console.log(
    `${CALLS} long-running calls at once (Prefer: respond-async), each ${WORK_MS} ms of work, one instance\n`,
  );
  console.log(
    '| scenario | calls | 202 | 503 | other | succeeded | lost | 202 p99 ms | all done s | RSS MB before → peak → after | event loop max delay ms |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
