/**
 * Data at scale (issue 46, docs/scaling.md "Data at scale"): on this machine, against 127.0.0.1
 * only, a store filled through the stores' own code (keys, principals, 90 days of usage, the audit
 * trail, the ledger) against an empty one of the same kind, side by side in the same run:
 *
 *   - start-up of the compiled server (`node dist/main.js`) to its first 200 on /health;
 *   - REST greet throughput and p99, a key picked at random among the filled ones for each request
 *     (nearly every call a key's first of the day); beside it, the filled store with the empty
 *     store's one key, and with a random key among 1,000 called before (the spread without firsts);
 *   - every page up to the 1,000th (by cursor) of the key list, the audit trail and the ledger;
 *   - a key's 90-day usage, /health, `cli doctor`;
 *   - the store's size on disk (SQLite, checkpointed) and in memory (Redis `used_memory`), per key
 *     and per entry, at half the fill and at the whole, and the full scale extrapolated from both;
 *   - the purges' longest event-loop delay (ledger, idle principals, usage and audit retention),
 *     run with the upkeep's own code in this process on the filled store.
 *
 *   npm run bench:data -- [--scale 0.1] [--store sqlite|redis|both]
 *
 * Scale 1 is the issue's: 1,000,000 keys, 100,000 principals, 90 days of usage for 100,000 keys,
 * 10,000,000 audit and 10,000,000 ledger entries. Settings: BENCH_CONNECTIONS (32), BENCH_DURATION
 * (4 s a round), BENCH_ROUNDS (2), BENCH_STARTS (3). Every loop is bounded.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';
import { AUDIT_STORE } from '../src/audit/audit.stores';
import { SCOPE_TEMPLATES } from '../src/kernel/auth/scopes';
import { SystemClock } from '../src/kernel/common/clock';
import { loadSettings, type Settings } from '../src/kernel/settings/settings';
import { parseInfo } from '../src/kernel/store/redis/redis.connection';
import {
  makeStore,
  openBackend,
  storeOf,
  type StoreBackend,
} from '../src/kernel/store/store.module';
import { LEDGER_STORE } from '../src/ledger/ledger.stores';
import { LedgerUpkeep } from '../src/ledger/ledger.upkeep';
import { USAGE_STORE } from '../src/limits/limits.stores';
import type { SqliteUsageStore } from '../src/limits/sqlite-usage.store';
import type { QuotaCharge } from '../src/limits/usage.store';
import { principalId } from '../src/oauth/principals.service';
import { PrincipalUpkeep } from '../src/oauth/principals.upkeep';
import { displayPrefix, hashApiKey } from '../src/subjects/api-key';
import { KEY_STORE, PRINCIPAL_STORE } from '../src/subjects/subjects.stores';
import { RedisServer } from '../src/testing/redis-server';
import { greetCharge } from './greet-charge';
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
  stop,
  tempDir,
  trackChild,
} from './lib';

// ---- options ----

function option(name: string, fallback: string): string {
  const args = process.argv.slice(2);
  const at = args.findIndex((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
  if (at < 0) return fallback;
  const arg = args[at];
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : (args[at + 1] ?? fallback);
}

const SCALE = Number(option('scale', '0.1'));
const STORES = option('store', 'both');
if (!(SCALE > 0 && SCALE <= 1)) throw new Error(`--scale must be in (0, 1], not ${SCALE}`);
if (!['sqlite', 'redis', 'both'].includes(STORES)) throw new Error(`--store sqlite|redis|both`);

const CONNECTIONS = num('BENCH_CONNECTIONS', 32);
const DURATION = num('BENCH_DURATION', 4);
const ROUNDS = num('BENCH_ROUNDS', 2);
const STARTS = num('BENCH_STARTS', 3);
const BATCH = 500;
const PAGES = 1000;
const DAY = 86_400_000;

/** The issue's figures (scale 1). */
const FULL = {
  keys: 1_000_000,
  principals: 100_000,
  usageKeys: 100_000,
  audit: 10_000_000,
  ledger: 10_000_000,
};
const COUNTS = {
  keys: Math.round(FULL.keys * SCALE),
  principals: Math.round(FULL.principals * SCALE),
  usageKeys: Math.round(FULL.usageKeys * SCALE),
  audit: Math.round(FULL.audit * SCALE),
  ledger: Math.round(FULL.ledger * SCALE),
};
type Kind = keyof typeof COUNTS;
const KINDS: Kind[] = ['keys', 'principals', 'usageKeys', 'audit', 'ledger'];
const USAGE_DAYS = 90;
/** Usage days a usage key holds: one store count each (a tool's calls on that day). */
const TOOLS = ['greet', 'lookup', 'convert'];
/** The keys the ledger's entries are charged to (the first of the filled keys). */
const LEDGER_KEYS = 1000;

const NOW = Date.now();
const T_KEYS = NOW - 365 * DAY;
/** The audit trail spans 91 days: the oldest day is what the next append forgets. */
const T_AUDIT = NOW - 91 * DAY;
/** The ledger spans 100 days: the oldest 10 are past the purge's 90-day retention here. */
const T_LEDGER = NOW - 100 * DAY;
/** Principals last seen over 100 days: those unseen for 90 are the idle purge's. */
const T_PRINCIPALS = NOW - 100 * DAY;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

// ---- what is filled: known keys, so that their texts can be sent ----

const keyId = (i: number) => `key_${(i + 1).toString(16).padStart(16, '0')}`;
const secretOf = (i: number) =>
  `sk_${createHash('sha256').update(`bench-data:${i}`).digest('hex')}`;
const ADMIN_SECRET = secretOf(-1);
const ADMIN_ID = 'key_a0a0a0a0a0a0a0a0';
const GREET_SECRET = secretOf(-2);
const GREET_ID = 'key_b0b0b0b0b0b0b0b0';

function keyRecord(id: string, secret: string, createdAt: number, admin = false) {
  return {
    id,
    name: admin ? 'bench-admin' : `bench-${id}`,
    prefix: displayPrefix(secret),
    hash: hashApiKey(secret),
    scopes: admin ? SCOPE_TEMPLATES.admin : SCOPE_TEMPLATES.standard,
    plan: 'unlimited',
    daily_limit: null,
    monthly_limit: null,
    rate_limit: null,
    created_at: new Date(createdAt).toISOString(),
    expires_at: null,
    revoked_at: null,
    last_used_at: null,
    external_id: `cus_${(createdAt % 997).toString().padStart(4, '0')}`,
  };
}

function usageCharge(u: number, d: number): { keyId: string; charge: QuotaCharge } {
  const day = dayOf(NOW - (USAGE_DAYS - d) * DAY);
  const tool = TOOLS[(u + d) % TOOLS.length];
  return {
    keyId: keyId(u),
    charge: {
      day,
      month: day.slice(0, 7),
      dailyLimit: null,
      monthlyLimit: null,
      cost: 1 + ((u * 7 + d) % 5),
      tool,
    },
  };
}

function ledgerCharge(i: number): { keyId: string; charge: QuotaCharge } {
  const at = T_LEDGER + Math.floor((i * 100 * DAY) / COUNTS.ledger);
  const subject = keyId(i % LEDGER_KEYS);
  return { keyId: subject, charge: greetCharge(i, at, subject) };
}

// ---- the environment of the server and the CLI ----

interface Setup {
  store: 'sqlite' | 'redis';
  dataDir: string;
  redis?: RedisServer;
  env: Record<string, string>;
}

function serverEnv(
  dataDir: string,
  issuer: string,
  redisUrl: string | undefined,
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    DATA_DIR: dataDir,
    PLAN_UNLIMITED_RATE_LIMIT: '100000000',
    PUBLIC_URL: 'http://127.0.0.1',
    OAUTH_ISSUERS: issuer,
    OAUTH_MAX_PRINCIPALS: String(COUNTS.principals * 2 + 1000),
    // The servers purge nothing of the fill (the bench runs the purges itself, measured).
    OAUTH_PRINCIPAL_IDLE_DAYS: '400',
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
  };
}

async function setup(store: 'sqlite' | 'redis', issuer: string, label: string): Promise<Setup> {
  const dataDir = tempDir(`tis-bench-data-${label}-`);
  const redis = store === 'redis' ? await RedisServer.start() : undefined;
  return { store, dataDir, redis, env: serverEnv(dataDir, issuer, redis?.url) };
}

const open = (s: Setup) => openBackend(loadSettings(s.env));

/** The admin key and one greet key: what the empty store holds. */
async function seed(s: Setup): Promise<void> {
  const backend = await open(s);
  try {
    const keys = await makeStore(backend, KEY_STORE);
    await keys.insertKey(keyRecord(ADMIN_ID, ADMIN_SECRET, T_KEYS - DAY, true));
    await keys.insertKey(keyRecord(GREET_ID, GREET_SECRET, T_KEYS - DAY));
  } finally {
    await storeOf(backend).close();
  }
}

// ---- size: SQLite's files (checkpointed), Redis's used_memory ----

function dirBytes(dir: string): number {
  return readdirSync(dir)
    .filter((name) => name.startsWith('service.db'))
    .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

async function sizeOf(s: Setup, backend: StoreBackend): Promise<number> {
  if (backend.kind === 'sqlite') {
    backend.sqlite.db.pragma('wal_checkpoint(TRUNCATE)');
    return dirBytes(s.dataDir);
  }
  const admin = new Redis(s.redis!.url);
  try {
    return Number(parseInfo(await admin.info('memory')).used_memory);
  } finally {
    admin.disconnect();
  }
}

// ---- the fill, through the stores' own code, in batches ----

interface FillReport {
  seconds: Record<Kind, number>;
  totalSeconds: number;
  /** Bytes after each half of each kind (disk on SQLite, used_memory on Redis). */
  bytesBefore: number;
  bytesAfter: Record<Kind, [number, number]>;
}

/**
 * Writes `[from, to)` a batch at a time. On SQLite, `shared` (the key, principal and audit stores,
 * whose connection syncs every commit) runs each batch in one transaction: each store call still
 * runs its own statements and its own transaction (then a savepoint), and the batch commits once,
 * as the usage store's group commit does for counts; a commit each would take hours at scale 1.
 */
async function inBatches(
  from: number,
  to: number,
  write: (i: number) => Promise<unknown>,
  shared?: { exec(sql: string): unknown },
): Promise<void> {
  for (let i = from; i < to; i += BATCH) {
    shared?.exec('BEGIN');
    try {
      const batch: Promise<unknown>[] = [];
      for (let j = i; j < Math.min(to, i + BATCH); j++) batch.push(write(j));
      await Promise.all(batch);
      shared?.exec('COMMIT');
    } catch (error) {
      shared?.exec('ROLLBACK');
      throw error;
    }
  }
}

async function fill(s: Setup): Promise<FillReport> {
  const backend = await open(s);
  const started = performance.now();
  try {
    const keys = await makeStore(backend, KEY_STORE);
    const principals = await makeStore(backend, PRINCIPAL_STORE);
    const usage = await makeStore(backend, USAGE_STORE);
    const audit = await makeStore(backend, AUDIT_STORE);
    const issuer = s.env.OAUTH_ISSUERS;
    const keepSince = new Date(T_AUDIT - 1).toISOString();
    const writers: Record<Kind, (i: number) => Promise<unknown>> = {
      keys: (i) =>
        keys.insertKey(
          keyRecord(keyId(i), secretOf(i), T_KEYS + Math.floor((i * 364 * DAY) / COUNTS.keys)),
        ),
      principals: (i) => {
        const subject = `user-${i}`;
        const seen = new Date(
          T_PRINCIPALS + Math.floor((i * 100 * DAY) / COUNTS.principals),
        ).toISOString();
        return principals.ensurePrincipal(
          {
            id: principalId(issuer, subject),
            issuer,
            subject,
            client_id: 'bench-client',
            first_seen_at: seen,
            last_seen_at: seen,
          },
          { max: COUNTS.principals * 2 + 1000 },
        );
      },
      // One count for each of 90 days of each usage key: i = key * 90 + day.
      usageKeys: (i) => {
        const { keyId: id, charge } = usageCharge(Math.floor(i / USAGE_DAYS), i % USAGE_DAYS);
        return usage.consumeQuota(id, charge);
      },
      audit: (i) =>
        audit.appendAudit(
          {
            at: new Date(T_AUDIT + Math.floor((i * 91 * DAY) / COUNTS.audit)).toISOString(),
            actor_key_id: ADMIN_ID,
            actor_principal_id: null,
            action: 'api_key.update',
            target: keyId(i % Math.max(1, COUNTS.keys)),
            request_id: `5b0c1a52-62b8-4b8e-9d4f-${String(i).padStart(12, '0')}`,
            details: { name: { from: `bench-${i}`, to: `bench-${i + 1}` } },
          },
          keepSince,
        ),
      ledger: (i) => {
        const { keyId: id, charge } = ledgerCharge(i);
        return usage.consumeQuota(id, charge);
      },
    };
    const total: Record<Kind, number> = { ...COUNTS, usageKeys: COUNTS.usageKeys * USAGE_DAYS };
    const seconds = { keys: 0, principals: 0, usageKeys: 0, audit: 0, ledger: 0 };
    const bytesBefore = await sizeOf(s, backend);
    const bytesAfter = {} as Record<Kind, [number, number]>;
    for (const half of [0, 1]) {
      for (const kind of KINDS) {
        const from = half ? Math.floor(total[kind] / 2) : 0;
        const to = half ? total[kind] : Math.floor(total[kind] / 2);
        const t0 = performance.now();
        const shared =
          backend.kind === 'sqlite' && kind !== 'usageKeys' && kind !== 'ledger'
            ? backend.sqlite.db
            : undefined;
        await inBatches(from, to, writers[kind], shared);
        seconds[kind] += (performance.now() - t0) / 1000;
        const bytes = await sizeOf(s, backend);
        (bytesAfter[kind] ??= [0, 0])[half] = bytes;
        progress(
          `  ${s.store}: ${kind} ${to}/${total[kind]} in ${seconds[kind].toFixed(1)} s (${Math.round(bytes / 2 ** 20)} MiB)`,
        );
      }
    }
    return {
      seconds,
      totalSeconds: (performance.now() - started) / 1000,
      bytesBefore,
      bytesAfter,
    };
  } finally {
    await storeOf(backend).close();
  }
}

/** Bytes per item of each kind (each half's growth), and the full scale extrapolated. */
function sizes(report: FillReport) {
  const perItem = {} as Record<Kind, { half1: number; half2: number }>;
  const items: Record<Kind, number> = { ...COUNTS, usageKeys: COUNTS.usageKeys * USAGE_DAYS };
  // The halves were filled kind by kind: the first half of every kind, then the second.
  let last = report.bytesBefore;
  for (const half of [0, 1] as const) {
    for (const kind of KINDS) {
      const now = report.bytesAfter[kind][half];
      const n = half ? items[kind] - Math.floor(items[kind] / 2) : Math.floor(items[kind] / 2);
      perItem[kind] ??= { half1: 0, half2: 0 };
      perItem[kind][half ? 'half2' : 'half1'] = Math.round((now - last) / Math.max(1, n));
      last = now;
    }
  }
  const atHalf = report.bytesAfter.ledger[0];
  const atWhole = last;
  // A line through the two scales measured (half of this one, and this one), taken to scale 1.
  const slope = (atWhole - atHalf) / (SCALE / 2);
  return {
    perItem,
    bytesAtHalf: atHalf,
    bytesAtScale: atWhole,
    fullScaleBytes: Math.round(atWhole + slope * (1 - SCALE)),
  };
}

// ---- the server ----

interface Server {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

/** `node dist/main.js`, spawned; resolves with the time to its first 200 on /health. */
async function startServer(s: Setup): Promise<{ server: Server; startMs: number }> {
  const port = await freePort();
  const t0 = performance.now();
  const child = trackChild(
    spawn(process.execPath, ['dist/main.js'], {
      cwd: ROOT,
      env: { ...s.env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited: ${stderr}`);
    if (Date.now() > deadline) {
      await stop(child);
      throw new Error(`the server did not answer /health in 120 s: ${stderr}`);
    }
    try {
      const res = await fetch(`${url}/health`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await sleep(5);
  }
  const startMs = performance.now() - t0;
  return { server: { url, pid: child.pid!, stop: () => stop(child) }, startMs };
}

const round1 = (x: number) => Math.round(x * 10) / 10;

async function timed(url: string, headers: Record<string, string> = {}) {
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  const body = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body.slice(0, 300)}`);
  return { ms, body, link: res.headers.get('link') };
}

const admin = { Authorization: `Bearer ${ADMIN_SECRET}` };

interface Pages {
  pageSize: number;
  pages: number;
  firstMs: number;
  thousandthMs: number | null;
  maxMs: number;
  medianMs: number;
  p99Ms: number;
  over50ms: number;
}

/** At most 100 a page, and small enough for a 1,000th page (the audit lists 90 of its 91 days). */
const pageSize = (items: number) => Math.max(1, Math.min(100, Math.floor(items / (PAGES * 1.1))));

/** Pages in order by cursor, up to the 1,000th, each timed. */
async function walk(
  size: number,
  first: string,
  next: (page: { body: string; link: string | null }) => string | undefined,
): Promise<Pages> {
  const times: number[] = [];
  let url: string | undefined = first;
  while (url && times.length < PAGES) {
    const page = await timed(url, admin);
    times.push(page.ms);
    url = next(page);
  }
  return {
    pageSize: size,
    pages: times.length,
    firstMs: round1(times[0]),
    thousandthMs: times.length === PAGES ? round1(times[PAGES - 1]) : null,
    maxMs: round1(Math.max(...times)),
    medianMs: round1(median(times)),
    p99Ms: round1([...times].sort((a, b) => a - b)[Math.floor(times.length * 0.99)]),
    over50ms: times.filter((ms) => ms >= 50).length,
  };
}

async function lists(server: Server) {
  const base = server.url;
  const keysSize = pageSize(COUNTS.keys);
  const keys = await walk(keysSize, `${base}/api/v1/auth/api-keys?limit=${keysSize}`, (page) => {
    const m = /<([^>]+)>;\s*rel="next"/.exec(page.link ?? '');
    return m ? new URL(m[1], base).toString() : undefined;
  });
  const auditSize = pageSize(COUNTS.audit);
  const audit = await walk(auditSize, `${base}/api/v1/audit?limit=${auditSize}`, (page) => {
    const entries = (JSON.parse(page.body) as { entries: { id: number }[] }).entries;
    return entries.length === auditSize
      ? `${base}/api/v1/audit?limit=${auditSize}&before=${entries[entries.length - 1].id}`
      : undefined;
  });
  const ledgerSize = pageSize(COUNTS.ledger);
  const range = `from=${new Date(T_LEDGER - DAY).toISOString()}&to=${new Date(NOW + DAY).toISOString()}`;
  const ledgerBase = `${base}/api/v1/ledger?${range}&limit=${ledgerSize}`;
  const ledger = await walk(ledgerSize, ledgerBase, (page) => {
    const cursor = (JSON.parse(page.body) as { next_cursor: string | null }).next_cursor;
    return cursor ? `${ledgerBase}&cursor=${encodeURIComponent(cursor)}` : undefined;
  });
  return { keys, audit, ledger };
}

async function repeated(url: string, times: number, headers: Record<string, string> = {}) {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) ms.push((await timed(url, headers)).ms);
  return { medianMs: round1(median(ms)), maxMs: round1(Math.max(...ms)) };
}

function doctor(s: Setup) {
  const t0 = performance.now();
  const run = spawnSync(process.execPath, ['dist/cli.js', 'doctor', '--json'], {
    cwd: ROOT,
    env: s.env,
    encoding: 'utf8',
    timeout: 300_000,
  });
  const ms = performance.now() - t0;
  let failing: string[] = [];
  try {
    const report = JSON.parse(run.stdout) as {
      checks: { name: string; status: string; message: string }[];
    };
    failing = report.checks
      .filter((c) => c.status === 'fail')
      .map((c) => `${c.name}: ${c.message.slice(0, 300)}`);
  } catch {
    failing = [`unreadable output (exit ${run.status}): ${run.stderr.slice(0, 200)}`];
  }
  return { ms: Math.round(ms), exit: run.status, failing };
}

/** Keys of the filled store a warm round picks among: each is called many times a round. */
const WARM_KEYS = 1_000;

/** REST greet for `duration` s, a key picked at random among the first `keys` (0: the one key). */
async function greet(server: Server, keys: number, duration: number) {
  const res: CannonResult = await autocannon({
    url: `${server.url}/api/v1/services/greet`,
    connections: CONNECTIONS,
    duration,
    requests: [
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Alice', shout: true }),
        setupRequest: (req: { headers: Record<string, string> }) => {
          const secret = keys ? secretOf(Math.floor(Math.random() * keys)) : GREET_SECRET;
          return { ...req, headers: { ...req.headers, Authorization: `Bearer ${secret}` } };
        },
      },
    ],
  });
  return {
    rps: Math.round(res.requests.average),
    p99Ms: res.latency.p99,
    p50Ms: res.latency.p50,
    non2xx: res.non2xx,
    errors: res.errors,
  };
}

// ---- the purges, with the upkeep's own code, in this process ----

/**
 * Runs `work` while a 1 ms timer watches this process's event loop: the longest gap between two
 * of its ticks beyond the 1 ms (what a call arriving then would have waited), and the wall time.
 */
async function loopHeld(work: () => unknown) {
  let last = performance.now();
  let longest = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  await sleep(20);
  longest = 0;
  last = performance.now();
  const t0 = performance.now();
  await work();
  const wallMs = performance.now() - t0;
  await sleep(20);
  clearInterval(tick);
  return { maxDelayMs: round1(Math.max(0, longest - 1)), wallMs: Math.round(wallMs) };
}

/**
 * Usage retention: SQLite prunes the days past 90 when its usage store is made (at start-up) and
 * when a count's day is later than any before (at midnight), a slice a group commit, once a day;
 * Redis lets its counters expire. Measured on the filled store before any server start made the
 * store, as on a day not pruned yet (the fill's usage store marked today's prune done).
 */
async function usageRetention(s: Setup) {
  if (s.store === 'redis') return { what: 'n/a: Redis expires the counters (TTL)' };
  const backend = await open(s);
  try {
    if (backend.kind === 'sqlite') backend.sqlite.db.exec('DELETE FROM usage_retention');
    return {
      ...(await loopHeld(async () => {
        const usage = await makeStore(backend, USAGE_STORE);
        await (usage as SqliteUsageStore).pruned();
      })),
      what: 'the usage store made and its prune ended: the counters past 90 days (a day of every usage key)',
    };
  } finally {
    await storeOf(backend).close();
  }
}

async function purges(s: Setup, usageRetained: Record<string, unknown>) {
  const backend = await open(s);
  try {
    const settings: Settings = loadSettings(s.env);
    const clock = new SystemClock();
    const results: Record<string, unknown> = { usageRetention: usageRetained };
    const usage = await makeStore(backend, USAGE_STORE);
    // Audit retention: the next append forgets the entries past 90 days (the oldest day here).
    const audit = await makeStore(backend, AUDIT_STORE);
    results.auditRetention = {
      ...(await loopHeld(() =>
        audit.appendAudit(
          {
            at: new Date().toISOString(),
            actor_key_id: ADMIN_ID,
            actor_principal_id: null,
            action: 'config.set',
            target: 'bench',
            request_id: null,
            details: {},
          },
          new Date(Date.now() - 90 * DAY).toISOString(),
        ),
      )),
      what: `an append that forgets a day of the trail (~${Math.round(COUNTS.audit / 91)} entries)`,
    };
    // The ledger's hourly purge: 90 days kept, the oldest 10 of the 100 filled go.
    const ledger = await makeStore(backend, LEDGER_STORE);
    const upkeep = new LedgerUpkeep(ledger, clock, { ...settings, ledgerRetentionDays: 90 });
    results.ledgerPurge = {
      ...(await loopHeld(() => upkeep.purge())),
      what: `LedgerUpkeep.purge, 90 days kept (~${Math.round(COUNTS.ledger / 10)} entries go, 1,000 a slice)`,
    };
    // The idle principals' hourly purge: unseen for 90 days (the oldest tenth), with their usage.
    const principals = await makeStore(backend, PRINCIPAL_STORE);
    const oauth = { ...settings.oauth!, principalIdleDays: 90 };
    const idle = new PrincipalUpkeep(principals, usage, clock, { ...settings, oauth });
    let purged = 0;
    results.principalPurge = {
      ...(await loopHeld(async () => (purged = await idle.purgeIdle()))),
      what: 'PrincipalUpkeep.purgeIdle, unseen for 90 days',
      purged,
    };
    results.runsPurge = { what: 'n/a: no runs filled' };
    return results;
  } finally {
    await storeOf(backend).close();
  }
}

// ---- one store: empty and filled, side by side ----

async function measureStartups(empty: Setup, filled: Setup) {
  const times = { empty: [] as number[], filled: [] as number[] };
  for (let i = 0; i < STARTS; i++) {
    for (const [name, s] of [
      ['empty', empty],
      ['filled', filled],
    ] as const) {
      const { server, startMs } = await startServer(s);
      times[name].push(startMs);
      await server.stop();
    }
  }
  return {
    emptyMs: Math.round(median(times.empty)),
    filledMs: Math.round(median(times.filled)),
    runs: { empty: times.empty.map(Math.round), filled: times.filled.map(Math.round) },
  };
}

async function oneStore(store: 'sqlite' | 'redis', issuer: string) {
  progress(`\n== ${store} ==`);
  const empty = await setup(store, issuer, 'empty');
  const filled = await setup(store, issuer, 'filled');
  try {
    await seed(empty);
    await seed(filled);
    progress(`${store}: filling ${JSON.stringify(COUNTS)} (usage: ${USAGE_DAYS} days a key)`);
    const filling = await fill(filled);
    progress(`${store}: filled in ${filling.totalSeconds.toFixed(0)} s`);
    const size = sizes(filling);
    const retained = await usageRetention(filled);

    progress(`${store}: start-up, ${STARTS} times each`);
    const startup = await measureStartups(empty, filled);

    const e = (await startServer(empty)).server;
    const f = (await startServer(filled)).server;
    try {
      progress(`${store}: greet, ${ROUNDS} interleaved rounds of ${DURATION} s`);
      await greet(e, 0, 2);
      await greet(f, COUNTS.keys, 2);
      await greet(f, WARM_KEYS, 2);
      type Round = Awaited<ReturnType<typeof greet>>;
      const rounds = {
        empty: [] as Round[],
        filled: [] as Round[],
        filledOneKey: [] as Round[],
        filledWarm: [] as Round[],
      };
      for (let r = 0; r < ROUNDS; r++) {
        rounds.empty.push(await greet(e, 0, DURATION));
        rounds.filled.push(await greet(f, COUNTS.keys, DURATION));
        rounds.filledOneKey.push(await greet(f, 0, DURATION));
        rounds.filledWarm.push(await greet(f, WARM_KEYS, DURATION));
      }
      const pick = (rs: Round[]) => ({
        rps: median(rs.map((x) => x.rps)),
        p99Ms: median(rs.map((x) => x.p99Ms)),
        p50Ms: median(rs.map((x) => x.p50Ms)),
        non2xx: rs.reduce((sum, x) => sum + x.non2xx, 0),
        errors: rs.reduce((sum, x) => sum + x.errors, 0),
        rounds: rs,
      });
      const greetFigures = {
        empty: pick(rounds.empty),
        filled: pick(rounds.filled),
        /** The filled store with the one key the empty store has: data size without key spread. */
        filledOneKey: pick(rounds.filledOneKey),
        /**
         * The filled store, a random key among 1,000 called before (their rows of the day written,
         * their records read): the spread of keys without the first call of each.
         */
        filledWarm: pick(rounds.filledWarm),
      };

      progress(`${store}: list pages up to the ${PAGES}th`);
      const pages = { empty: await lists(e), filled: await lists(f) };

      const usageUrl = (server: Server, id: string) =>
        `${server.url}/api/v1/auth/api-keys/${id}/usage?days=90`;
      const usage = {
        empty: await repeated(usageUrl(e, GREET_ID), 20, admin),
        filled: await repeated(usageUrl(f, keyId(Math.floor(COUNTS.usageKeys / 2))), 20, admin),
      };
      const health = {
        empty: await repeated(`${e.url}/health`, 20),
        filled: await repeated(`${f.url}/health`, 20),
      };
      progress(`${store}: doctor`);
      const doctors = { empty: doctor(empty), filled: doctor(filled) };
      await e.stop();
      await f.stop();

      progress(`${store}: purges`);
      const purge = await purges(filled, retained);
      return {
        store,
        fill: filling,
        size,
        startup,
        greet: greetFigures,
        pages,
        usage,
        health,
        doctor: doctors,
        purges: purge,
      };
    } finally {
      await e.stop();
      await f.stop();
    }
  } finally {
    for (const s of [empty, filled]) await s.redis?.stop();
  }
}

// ---- report ----

function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

type StoreResult = Awaited<ReturnType<typeof oneStore>>;

function verdicts(r: StoreResult) {
  const maxPage = Math.max(
    ...(['keys', 'audit', 'ledger'] as const).flatMap((l) => [r.pages.filled[l].maxMs]),
  );
  const purgeDelays = Object.values(r.purges)
    .map((p) => (p as { maxDelayMs?: number }).maxDelayMs)
    .filter((x): x is number => x !== undefined);
  const worstPurge = Math.max(0, ...purgeDelays);
  return {
    greetThroughput: {
      line: 'filled ≥ 0.9 × empty',
      ratio: round2(r.greet.filled.rps / r.greet.empty.rps),
      met: r.greet.filled.rps >= 0.9 * r.greet.empty.rps,
    },
    greetP99: {
      line: 'filled ≤ 1.5 × empty',
      ratio: round2(r.greet.filled.p99Ms / r.greet.empty.p99Ms),
      met: r.greet.filled.p99Ms <= 1.5 * r.greet.empty.p99Ms,
    },
    pages: { line: 'every page < 50 ms', maxMs: maxPage, met: maxPage < 50 },
    startup: {
      line: 'filled ≤ 2 × empty',
      ratio: round2(r.startup.filledMs / r.startup.emptyMs),
      met: r.startup.filledMs <= 2 * r.startup.emptyMs,
    },
    purges: { line: 'no purge holds the loop > 100 ms', maxMs: worstPurge, met: worstPurge <= 100 },
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

function table(r: StoreResult): string {
  const v = verdicts(r);
  const rows: [string, string, string, string][] = [
    [
      'start-up to /health 200 (median)',
      `${r.startup.emptyMs} ms`,
      `${r.startup.filledMs} ms`,
      `${v.startup.ratio} × ${v.startup.met ? 'met' : 'NOT met'}`,
    ],
    [
      'greet req/s (median round)',
      `${r.greet.empty.rps}`,
      `${r.greet.filled.rps}`,
      `${v.greetThroughput.ratio} × ${v.greetThroughput.met ? 'met' : 'NOT met'}`,
    ],
    [
      'greet p99',
      `${r.greet.empty.p99Ms} ms`,
      `${r.greet.filled.p99Ms} ms`,
      `${v.greetP99.ratio} × ${v.greetP99.met ? 'met' : 'NOT met'}`,
    ],
    [
      'greet, filled store, the one key: req/s, p99',
      '',
      `${r.greet.filledOneKey.rps}, ${r.greet.filledOneKey.p99Ms} ms`,
      `${round2(r.greet.filledOneKey.rps / r.greet.empty.rps)} ×, ${round2(r.greet.filledOneKey.p99Ms / r.greet.empty.p99Ms)} ×`,
    ],
    [
      `greet, filled store, a random key of ${WARM_KEYS} called before: req/s, p99`,
      '',
      `${r.greet.filledWarm.rps}, ${r.greet.filledWarm.p99Ms} ms`,
      `${round2(r.greet.filledWarm.rps / r.greet.empty.rps)} ×, ${round2(r.greet.filledWarm.p99Ms / r.greet.empty.p99Ms)} ×`,
    ],
  ];
  for (const l of ['keys', 'audit', 'ledger'] as const) {
    const p = r.pages.filled[l];
    rows.push([
      `${l}: page 1 / ${PAGES}th / median / p99 / max (${p.pageSize} a page)`,
      `${r.pages.empty[l].firstMs} ms`,
      `${p.firstMs} / ${p.thousandthMs ?? 'n/a'} / ${p.medianMs} / ${p.p99Ms} / ${p.maxMs} ms`,
      p.maxMs < 50 ? 'met' : `NOT met: ${p.over50ms} of ${p.pages} ≥ 50 ms`,
    ]);
  }
  rows.push(
    [
      'key usage, 90 days (median)',
      `${r.usage.empty.medianMs} ms`,
      `${r.usage.filled.medianMs} ms`,
      '',
    ],
    ['/health (median)', `${r.health.empty.medianMs} ms`, `${r.health.filled.medianMs} ms`, ''],
    ['cli doctor', `${r.doctor.empty.ms} ms`, `${r.doctor.filled.ms} ms`, ''],
    [
      r.store === 'sqlite' ? 'size on disk' : 'used_memory',
      mib(r.fill.bytesBefore),
      mib(r.size.bytesAtScale),
      `full scale ≈ ${mib(r.size.fullScaleBytes)}`,
    ],
  );
  for (const [kind, bytes] of Object.entries(r.size.perItem)) {
    rows.push([
      `  bytes per ${kind === 'usageKeys' ? 'usage key-day' : kind.replace(/s$/, '')}`,
      '',
      `${bytes.half2}`,
      `first half ${bytes.half1}`,
    ]);
  }
  for (const [name, p] of Object.entries(r.purges)) {
    const purge = p as { maxDelayMs?: number; wallMs?: number; what: string };
    rows.push([
      `purge: ${name}`,
      '',
      purge.maxDelayMs === undefined ? 'n/a' : `${purge.maxDelayMs} ms held (${purge.wallMs} ms)`,
      purge.maxDelayMs === undefined ? '' : purge.maxDelayMs <= 100 ? 'met' : 'NOT met',
    ]);
  }
  const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((row) => row[c].length), 6));
  const header = `| ${['measure', 'empty', 'filled', 'line'].map((h, c) => h.padEnd(widths[c])).join(' | ')} |`;
  return [
    `${r.store}: ${JSON.stringify(COUNTS)} (usage: ${USAGE_DAYS} days each) filled in ${r.fill.totalSeconds.toFixed(0)} s`,
    header,
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map((row) => `| ${row.map((cell, c) => cell.padEnd(widths[c])).join(' | ')} |`),
  ].join('\n');
}

/** Roughly what the fill takes on disk (SQLite) at this scale, with room to spare. */
function checkDisk(): void {
  const estimate =
    2 *
    (COUNTS.keys * 800 +
      COUNTS.audit * 400 +
      COUNTS.ledger * 500 +
      COUNTS.usageKeys * USAGE_DAYS * 200);
  const fs = statfsSync(tmpdir());
  const free = fs.bavail * fs.bsize;
  progress(`disk: about ${mib(estimate)} needed in ${tmpdir()}, ${mib(free)} free`);
  if (free < estimate) throw new Error(`not enough disk in ${tmpdir()} for scale ${SCALE}`);
}

async function main(): Promise<void> {
  installCleanup();
  checkDisk();
  const t0 = performance.now();
  // An issuer nobody answers on loopback: OAuth on (principals read at start-up), no token used.
  const issuer = `http://127.0.0.1:${await freePort()}`;
  const stores =
    STORES === 'both' ? (['sqlite', 'redis'] as const) : [STORES as 'sqlite' | 'redis'];
  const results: StoreResult[] = [];
  for (const store of stores) results.push(await oneStore(store, issuer));
  const minutes = (performance.now() - t0) / 60_000;
  const report = {
    date: new Date().toISOString(),
    scale: SCALE,
    counts: { ...COUNTS, usageDays: USAGE_DAYS },
    machine: machine(),
    settings: { connections: CONNECTIONS, duration: DURATION, rounds: ROUNDS, starts: STARTS },
    minutes: round2(minutes),
    loadavgAtEnd: machine().loadavg1,
    stores: results.map((r) => ({ ...r, verdicts: verdicts(r) })),
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const file = join(ROOT, `bench/results/data-${SCALE}.json`);
  writeFileSync(file, JSON.stringify(report, null, 2));
  for (const r of results) console.log(`\n${table(r)}`);
  console.log(`\nscale ${SCALE}, ${minutes.toFixed(1)} minutes; figures in ${file}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
