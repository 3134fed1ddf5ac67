/**
 * The ledger part of `npm run bench:long-calls` (`BENCH_LONG_PARTS=ledger`): `/health` while
 * `doctor` reconciles a 100,000-entry ledger and while eight exports stream it, on SQLite (and on
 * Redis when redis-server is on the PATH). It measures and prints; it asserts nothing.
 *
 * The ledger is written through the usage store (the ledger's writer), as calls write it: 100,000
 * charges of 50 keys, today. Then `dist/main.js` starts on it with DOCTOR_LEDGER_INTERVAL_SECONDS=0
 * (every doctor call reconciles: the worst case; then again with the default 60, the ledger check
 * answering its last result, which shows what the other checks cost: `store`'s quick_check) and
 * LEDGER_MAX_EXPORTS=8, and this process asks `GET /health` every 20 ms on a connection of its own
 * through three phases of BENCH_LEDGER_SECONDS (10) s each: quiet; four clients calling `doctor`
 * back to back; eight clients each streaming the whole range as NDJSON, again and again. Reported
 * per phase: /health p50, p99 and max, and the doctor calls or the exports completed. Goal: p99
 * under 100 ms in both loaded phases.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, get, request } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadSettings } from '../src/kernel/settings/settings';
import { makeStore, openBackend, storeOf } from '../src/kernel/store/store.module';
import { newLedgerId } from '../src/ledger';
import { USAGE_STORE } from '../src/limits/limits.stores';
import type { QuotaCharge } from '../src/limits/usage.store';
import { INITIAL_KEY_FILE } from '../src/subjects/initial-key';
import { freePort, num, removeDir, ROOT, sleep, stop, tempDir, trackChild } from './lib';

const ENTRIES = num('BENCH_LEDGER_ENTRIES', 100_000);
const SECONDS = num('BENCH_LEDGER_SECONDS', 10);
const EXPORTS = 8;
const DOCTORS = 4;
const PROBE_EVERY_MS = 20;
export const LEDGER_P99_GOAL_MS = 100;
const KEYS = Array.from({ length: 50 }, (_, i) => `key_${i.toString(16).padStart(16, '0')}`);

/** ENTRIES charges through the usage store, 500 a round, ending now. */
async function fill(env: Record<string, string>): Promise<void> {
  const backend = await openBackend(loadSettings(env));
  try {
    const usage = await makeStore(backend, USAGE_STORE);
    const now = Date.now();
    for (let i = 0; i < ENTRIES; i += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, ENTRIES - i) }, (_, j) => {
          const at = now - ENTRIES + i + j;
          const day = new Date(at).toISOString().slice(0, 10);
          const subject = KEYS[(i + j) % KEYS.length];
          const charge: QuotaCharge = {
            day,
            month: day.slice(0, 7),
            dailyLimit: null,
            monthlyLimit: null,
            cost: 1,
            tool: 'greet',
            entry: {
              id: newLedgerId(at),
              subject: { kind: 'key', id: subject, external_id: null },
              run_id: null,
              tool: 'greet',
              credits: 1,
              kind: 'charge',
              transport: 'rest',
              request_id: null,
              idempotency_key: null,
              invocation_id: null,
              source: null,
            },
          };
          return usage.consumeQuota(subject, charge);
        }),
      );
    }
  } finally {
    await storeOf(backend).close();
  }
}

/** One request, its body read to the end; the status. */
function ask(url: string, options: { method?: string; headers?: Record<string, string> }) {
  return new Promise<number>((resolve, reject) => {
    const req = request(url, { ...options, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.method === 'POST' ? '{}' : undefined);
  });
}

/** `/health` every PROBE_EVERY_MS until `until`, on one kept-alive connection: latencies, ms. */
async function probe(base: string, until: () => boolean): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  while (!until()) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) =>
      get(`${base}/health`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      }).on('error', reject),
    );
    latencies.push(performance.now() - started);
    await sleep(PROBE_EVERY_MS);
  }
  agent.destroy();
  return latencies.sort((a, b) => a - b);
}

const at = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];

/** Runs `load` on `clients` clients back to back during one phase, with the prober; its row. */
async function phase(
  base: string,
  name: string,
  clients: number,
  load: () => Promise<number>,
): Promise<{ row: string; p99: number }> {
  const end = performance.now() + SECONDS * 1000;
  const done = () => performance.now() >= end;
  let completed = 0;
  const statuses = new Map<number, number>();
  const workers = Array.from({ length: clients }, async () => {
    while (!done()) {
      const status = await load();
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      completed++;
    }
  });
  const latencies = await probe(base, done);
  await Promise.all(workers);
  const p99 = at(latencies, 0.99);
  const answers = [...statuses].map(([s, n]) => `${s}: ${n}`).join(', ') || '-';
  return {
    p99,
    row: `| ${name} | ${clients} | ${completed} (${answers}) | ${latencies.length} | ${at(latencies, 0.5).toFixed(1)} | ${p99.toFixed(1)} | ${latencies[latencies.length - 1].toFixed(1)} |`,
  };
}

/** The three phases on one store: the table's rows. */
export async function ledgerLoad(
  redisUrl: string | undefined,
  interval = 0,
  phases = ['quiet', 'doctor', 'exports'],
): Promise<string[]> {
  const dir = tempDir('tis-ledger-');
  const store = redisUrl ? 'Redis' : 'SQLite';
  const env: Record<string, string> = {
    DATA_DIR: dir,
    ...(redisUrl ? { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `ledger-${Date.now()}:` } : {}),
  };
  const filling = performance.now();
  await fill(env);
  const filledS = (performance.now() - filling) / 1000;
  const port = await freePort();
  const child = trackChild(
    spawn(process.execPath, ['dist/main.js'], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...env,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        DOCTOR_LEDGER_INTERVAL_SECONDS: String(interval),
        LEDGER_MAX_EXPORTS: String(EXPORTS),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  try {
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if ((await fetch(`${base}/health`).catch(() => undefined))?.ok) break;
      if (i > 300) throw new Error('the service did not start');
      await sleep(100);
    }
    const key = readFileSync(join(dir, INITIAL_KEY_FILE), 'utf8').trim();
    const auth = { Authorization: `Bearer ${key}` };
    const rows: string[] = [];
    if (phases.includes('quiet')) {
      rows.push((await phase(base, `quiet, ${store}`, 0, () => Promise.resolve(0))).row);
    }
    if (phases.includes('doctor')) {
      const how = interval ? `its last ledger result for ${interval} s` : 'reconciling every call';
      const doctor = await phase(base, `doctor (${how}), ${store}`, DOCTORS, () =>
        ask(`${base}/api/v1/services/doctor`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
        }),
      );
      rows.push(doctor.row);
    }
    if (phases.includes('exports')) {
      const exports = await phase(base, `whole-range NDJSON exports, ${store}`, EXPORTS, () =>
        ask(`${base}/api/v1/ledger?from=2000-01-01T00:00:00Z`, {
          headers: { ...auth, Accept: 'application/x-ndjson' },
        }),
      );
      rows.push(exports.row);
    }
    console.log(
      `${store}: ${ENTRIES} entries written through the usage store in ${filledS.toFixed(1)} s`,
    );
    return rows;
  } finally {
    await stop(child);
    removeDir(dir);
  }
}

/** The table's head. */
export const LEDGER_TABLE_HEAD = [
  `/health every ${PROBE_EVERY_MS} ms over ${ENTRIES} ledger entries, ${SECONDS} s a phase (goal: p99 under ${LEDGER_P99_GOAL_MS} ms while loaded)`,
  '',
  '| phase | clients | completed (statuses) | /health probes | p50 ms | p99 ms | max ms |',
  '|---|---|---|---|---|---|---|',
];
