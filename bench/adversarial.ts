/**
 * Adversarial benchmark: what one hostile request costs the service, and what a flood of them does to
 * a well-behaved client. It is a benchmark, not a test: it measures and prints, it asserts nothing.
 *
 * For each class of hostile request, on a freshly started `dist/main.js` (127.0.0.1, its own
 * DATA_DIR):
 *   1. solo: N requests of the class, one at a time, on an otherwise idle server: median and max
 *      latency seen from the client, the statuses, and the event loop's longest delay over that
 *      window (prom-client's `nodejs_eventloop_lag_max_seconds`/`_p99_seconds`, scraped from /metrics
 *      before and after: the scrape resets the histogram). A server that dies is reported as crashed
 *      and restarted;
 *   2. victim: greet (`{"name":"Alice"}`, an `unlimited` key whose rate limit the load cannot reach)
 *      on 4 connections, first quiet, then while an attacker process sends the class flat out on 8
 *      connections: p50/p99 and req/s of the victim in both phases.
 * Goal line per class: cost ≤ 20 ms for a REST request, ≤ 25 ms for an MCP POST (the larger of the
 * solo median latency and the longest event-loop stall) and victim p99 under attack ≤ 2 × quiet.
 *
 * Run with `npm run bench:adversarial` (builds first). Settings: BENCH_ADV_DURATION (5 s per phase),
 * BENCH_ADV_SOLO (20), BENCH_ADV_WARMUP (1 s), BENCH_ADV_KEYS (5000 keys before /health),
 * BENCH_ADV_CLASSES (which classes on SQLite, default all: 0-14), BENCH_ADV_REDIS_CLASSES (default
 * 0,2,5,6,9,10; empty skips Redis), BENCH_ADV_WEBHOOKS (the stores of the webhook case,
 * bench/webhook-isolation.ts: default sqlite,redis; empty skips it), BENCH_ADV_ISSUER (0 skips the
 * hostile issuer's phase, bench/adversarial-issuer.ts), BENCH_ADV_ISSUER_MB (its answer, 400),
 * BENCH_APP_DIR (a directory holding a built dist/main.js; default this repository). Everything is
 * bounded in time; children and temporary directories are removed on exit.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  autocannon,
  CannonResult,
  freePort,
  installCleanup,
  machine,
  median,
  num,
  removeDir,
  ROOT,
  sleep,
  startRedis,
  stop,
  tempDir,
  trackChild,
} from './lib';
import {
  issuerPhase,
  issuerTable,
  ISSUER_RSS_GOAL_MB,
  type IssuerResult,
} from './adversarial-issuer';
import {
  WEBHOOK_BENCH_ENV,
  webhookIsolation,
  WebhookIsolation,
  webhookTable,
} from './webhook-isolation';

const DURATION = num('BENCH_ADV_DURATION', 5);
const SOLO_N = num('BENCH_ADV_SOLO', 20);
const WARMUP = num('BENCH_ADV_WARMUP', 1);
const KEYS = num('BENCH_ADV_KEYS', 5000);
const VICTIM_CONNECTIONS = 4;
const ATTACK_CONNECTIONS = 8;
/** The event loop one hostile request may cost: a REST request's, and an MCP POST's (the contract's). */
const COST_GOAL_MS = 20;
const MCP_COST_GOAL_MS = 25;
const P99_GOAL_RATIO = 2;
/** prom-client samples the event loop every 10 ms: a delay of D shows as an interval of D to D + 10. */
const LOOP_TICK_MS = 10;
const APP_DIR = resolve(process.env.BENCH_APP_DIR ?? ROOT);
const classList = (raw: string | undefined, fallback: string) =>
  (raw ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
const SQLITE_CLASSES = classList(
  process.env.BENCH_ADV_CLASSES,
  '0,1,2,3,4,5,6,7,8,9,10,11,12,13,14',
);
const REDIS_CLASSES = classList(process.env.BENCH_ADV_REDIS_CLASSES, '0,2,5,6,9,10');
/** The hostile issuer's phase (bench/adversarial-issuer.ts); `0` skips it. */
const ISSUER_PHASE = process.env.BENCH_ADV_ISSUER !== '0';
const WEBHOOK_STORES = (process.env.BENCH_ADV_WEBHOOKS ?? 'sqlite,redis').split(',');
const GREET = '/api/v1/services/greet';
/** A route that reads the whole BODY_LIMIT_BYTES (tool routes read 64 KiB): where 1 MB bodies go. */
const KEYS_ROUTE = '/api/v1/auth/api-keys';
const VICTIM_BODY = JSON.stringify({ name: 'Alice' });

// ---------------------------------------------------------------- the hostile requests

interface Keys {
  admin: string;
  victim: string;
  attacker: string;
  free: string;
}

interface HttpSpec {
  kind: 'http';
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** A fresh random `Bearer sk_<64 hex>` on every request. */
  randomKey?: boolean;
}

interface RawCase {
  name: string;
  payload: Buffer;
}

interface RawSpec {
  kind: 'raw';
  cases: RawCase[];
}

type Spec = HttpSpec | RawSpec;

interface AttackClass {
  id: number;
  name: string;
  title: string;
  spec(keys: Keys): Spec;
  /**
   * An MCP POST of `messages` JSON-RPC messages: its goal is MCP_COST_GOAL_MS, and the messages a
   * second it got answered are reported (against the free plan's 5 when `free`).
   */
  mcp?: { messages: number; free?: boolean };
}

const json = { 'Content-Type': 'application/json' };
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const randomKey = () => `sk_${randomBytes(32).toString('hex')}`;

/** `{"name":"a","k0":0,…}`: `count` unknown keys, or as many as fit in `maxBytes`. */
function unknownKeysBody(count: number, maxBytes = Infinity): Buffer {
  const parts = ['"name":"a"'];
  let bytes = 12;
  for (let i = 0; i < count; i++) {
    const part = `"k${i}":0`;
    if (bytes + part.length + 1 > maxBytes) break;
    parts.push(part);
    bytes += part.length + 1;
  }
  return Buffer.from(`{${parts.join(',')}}`);
}

/** What a tool route reads at most (TOOL_BODY_LIMIT_BYTES' default). */
const TOOL_BODY_LIMIT = 64 * 1024;

function mcpBatch(): Buffer {
  const batch = Array.from({ length: 100 }, (_, i) => ({
    jsonrpc: '2.0',
    id: i + 1,
    method: 'tools/list',
  }));
  return Buffer.from(JSON.stringify(batch));
}

/** 100 `notifications/initialized`: no answer to build, only messages to count and hand over. */
function notificationBatch(): Buffer {
  const notification = { jsonrpc: '2.0', method: 'notifications/initialized' };
  return Buffer.from(JSON.stringify(Array.from({ length: 100 }, () => notification)));
}

/** `"k0":0,…` for `count` keys, each value padded so that the whole takes about `bytes`. */
function manyKeys(count: number, bytes: number): string {
  const pad = 'x'.repeat(Math.max(0, Math.floor(bytes / count) - 12));
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(`"k${i}":"${pad}"`);
  return parts.join(',');
}

/** A greet tools/call whose `_meta` holds 40,000 entries (the limit is 64): -32602, nothing runs. */
function bigMetaCall(): Buffer {
  const meta = Array.from({ length: 40_000 }, (_, i) => `"k${i}":0`).join(',');
  return Buffer.from(
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet",` +
      `"arguments":{"name":"a"},"_meta":{${meta}}}}`,
  );
}

/** A greet tools/call whose arguments hold 40,000 unknown keys, about 1 MB (under the body limit). */
function bigArgumentsCall(): Buffer {
  return Buffer.from(
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet",` +
      `"arguments":{"name":"a",${manyKeys(40_000, 1_000_000)}}}}`,
  );
}

const MCP_HEADERS = { ...json, Accept: 'application/json, text/event-stream' };

const raw = (text: string) => Buffer.from(text, 'latin1');

const CLASSES: AttackClass[] = [
  {
    id: 0,
    name: 'control',
    title: 'control: a legitimate client, greet with a valid key (not hostile)',
    spec: (k) => ({
      kind: 'http',
      method: 'POST',
      path: GREET,
      headers: { ...json, ...bearer(k.attacker) },
      body: Buffer.from(JSON.stringify({ name: 'Bob' })),
    }),
  },
  {
    id: 1,
    name: 'bad-percent',
    title: 'GET /api/v1/auth/api-keys/%ZZ (malformed percent-encoding, no key)',
    spec: () => ({ kind: 'http', method: 'GET', path: '/api/v1/auth/api-keys/%ZZ', headers: {} }),
  },
  {
    id: 2,
    name: 'unknown-keys',
    title: 'greet body with 40,000 unknown keys (valid key)',
    spec: (k) => ({
      kind: 'http',
      method: 'POST',
      path: GREET,
      headers: { ...json, ...bearer(k.attacker) },
      body: unknownKeysBody(40_000),
    }),
  },
  {
    id: 3,
    name: 'deep-nesting',
    title: "1 MB of '[' nesting to key creation (no key)",
    spec: () => ({
      kind: 'http',
      method: 'POST',
      path: KEYS_ROUTE,
      headers: json,
      body: Buffer.from('['.repeat(1_000_000)),
    }),
  },
  {
    id: 4,
    name: 'flat-string',
    title: 'a flat 1 MB JSON string to key creation (no key; baseline for 3)',
    spec: () => ({
      kind: 'http',
      method: 'POST',
      path: KEYS_ROUTE,
      headers: json,
      body: Buffer.from(JSON.stringify('a'.repeat(1_000_000))),
    }),
  },
  {
    id: 5,
    name: 'health',
    title: `GET /health with ${KEYS.toLocaleString('en-US')} keys in the store`,
    spec: () => ({ kind: 'http', method: 'GET', path: '/health', headers: {} }),
  },
  {
    id: 6,
    name: 'mcp-batch',
    title: 'POST /mcp, a batch of 100 tools/list, free-plan key (5 req/s)',
    mcp: { messages: 100, free: true },
    spec: (k) => ({
      kind: 'http',
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, ...bearer(k.free) },
      body: mcpBatch(),
    }),
  },
  {
    id: 7,
    name: 'parser-junk',
    title: 'raw TCP: bad header syntax, a 17 KB header, two Content-Length headers',
    spec: () => ({
      kind: 'raw',
      cases: [
        {
          name: 'bad header syntax',
          payload: raw(`GET ${GREET} HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n\r\n`),
        },
        {
          name: '17 KB header',
          payload: raw(
            `GET ${GREET} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
          ),
        },
        {
          name: 'two Content-Length',
          payload: raw(
            `POST ${GREET} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
              `Content-Length: 16\r\nContent-Length: 17\r\n\r\n{"name":"Alice"}`,
          ),
        },
      ],
    }),
  },
  {
    id: 8,
    name: 'invalid-keys',
    title: 'greet with random sk_ keys (failed-authentication limiter)',
    spec: () => ({
      kind: 'http',
      method: 'POST',
      path: GREET,
      headers: json,
      body: Buffer.from(VICTIM_BODY),
      randomKey: true,
    }),
  },
  {
    id: 9,
    name: 'mcp-notifications',
    title:
      'POST /mcp, a batch of 100 notifications/initialized (valid key, rate limit out of reach)',
    mcp: { messages: 100 },
    spec: (k) => ({
      kind: 'http',
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, ...bearer(k.attacker) },
      body: notificationBatch(),
    }),
  },
  {
    id: 10,
    name: 'mcp-notif-free',
    title: 'POST /mcp, a batch of 100 notifications/initialized, free-plan key (5 req/s)',
    mcp: { messages: 100, free: true },
    spec: (k) => ({
      kind: 'http',
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, ...bearer(k.free) },
      body: notificationBatch(),
    }),
  },
  {
    id: 11,
    name: 'mcp-big-meta',
    title: 'POST /mcp, a tools/call whose _meta holds 40,000 entries (valid key)',
    mcp: { messages: 1 },
    spec: (k) => ({
      kind: 'http',
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, ...bearer(k.attacker) },
      body: bigMetaCall(),
    }),
  },
  {
    id: 12,
    name: 'mcp-big-args',
    title:
      'POST /mcp, a greet tools/call with 40,000 unknown keys in its arguments, ~1 MB (valid key)',
    mcp: { messages: 1 },
    spec: (k) => ({
      kind: 'http',
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, ...bearer(k.attacker) },
      body: bigArgumentsCall(),
    }),
  },
  {
    id: 13,
    name: 'mcp-list-batch',
    title: 'POST /mcp, a batch of 100 tools/list (the most a batch may hold; valid key)',
    mcp: { messages: 100 },
    spec: (k) => ({
      kind: 'http',
      method: 'POST',
      path: '/mcp',
      headers: { ...MCP_HEADERS, ...bearer(k.attacker) },
      body: mcpBatch(),
    }),
  },
  {
    id: 14,
    name: 'unknown-keys-64k',
    title: 'greet body of unknown keys up to the tool body limit (64 KiB, 6,663 keys; valid key)',
    spec: (k) => ({
      kind: 'http',
      method: 'POST',
      path: GREET,
      headers: { ...json, ...bearer(k.attacker) },
      body: unknownKeysBody(Infinity, TOOL_BODY_LIMIT),
    }),
  },
];

const costGoalOf = (cls: { mcp?: unknown }) => (cls.mcp ? MCP_COST_GOAL_MS : COST_GOAL_MS);

// ---------------------------------------------------------------- one request, HTTP or raw

interface Answer {
  ms: number;
  status?: number;
  error?: string;
  body: string;
  bytes: number;
}

const BODY_KEEP = 8 * 2 ** 20;

function httpOnce(port: number, spec: HttpSpec, timeoutMs = 30_000): Promise<Answer> {
  return new Promise((done) => {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    const headers: Record<string, string> = { ...spec.headers };
    if (spec.randomKey) headers.Authorization = `Bearer ${randomKey()}`;
    if (spec.body) headers['Content-Length'] = String(spec.body.length);
    const req = request(
      { host: '127.0.0.1', port, method: spec.method, path: spec.path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          if (bytes < BODY_KEEP) chunks.push(c);
          bytes += c.length;
        });
        res.on('end', () =>
          done({
            ms: elapsed(),
            status: res.statusCode,
            body: Buffer.concat(chunks).toString('utf8'),
            bytes,
          }),
        );
        res.on('error', (e: NodeJS.ErrnoException) =>
          done({
            ms: elapsed(),
            status: res.statusCode,
            error: e.code ?? e.message,
            body: '',
            bytes,
          }),
        );
      },
    );
    req.setTimeout(timeoutMs, () =>
      req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })),
    );
    req.on('error', (e: NodeJS.ErrnoException) =>
      done({ ms: elapsed(), error: e.code ?? e.message, body: '', bytes: 0 }),
    );
    req.end(spec.body);
  });
}

/**
 * Writes a raw payload on a new connection and reads the answer until the connection closes or a
 * complete response (headers and Content-Length bytes) has arrived; bounded by `timeoutMs`.
 */
function rawOnce(port: number, payload: Buffer, timeoutMs = 5000): Promise<Answer> {
  return new Promise((done) => {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    const chunks: Buffer[] = [];
    let finished = false;
    const socket = connect({ host: '127.0.0.1', port });
    const finish = (error?: string) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1];
      const split = text.indexOf('\r\n\r\n');
      done({
        ms: elapsed(),
        status: status === undefined ? undefined : Number(status),
        error: status === undefined ? (error ?? 'no answer') : undefined,
        body: split >= 0 ? text.slice(split + 4) : '',
        bytes: text.length,
      });
    };
    const timer = setTimeout(() => finish('TIMEOUT'), timeoutMs);
    socket.on('connect', () => socket.write(payload));
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, split))?.[1];
      if (length !== undefined && text.length - split - 4 >= Number(length)) finish();
    });
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (e: NodeJS.ErrnoException) => finish(e.code ?? e.message));
  });
}

// ---------------------------------------------------------------- the service under test

interface Backend {
  name: 'sqlite' | 'redis';
  env: Record<string, string>;
}

class Service {
  port = 0;
  child?: ChildProcess;
  readonly dataDir: string;
  /** The last lines the process wrote to stderr (a crash's stack). */
  private stderrTail: string[] = [];
  exitedAt?: number;

  constructor(readonly backend: Backend) {
    this.dataDir = tempDir(`tis-adv-${backend.name}-`);
  }

  alive(): boolean {
    return (
      this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null
    );
  }

  async start(): Promise<void> {
    this.port = await freePort();
    this.stderrTail = [];
    this.exitedAt = undefined;
    const child = trackChild(
      spawn(process.execPath, ['dist/main.js'], {
        cwd: APP_DIR,
        env: {
          ...process.env,
          ...this.backend.env,
          DATA_DIR: this.dataDir,
          PORT: String(this.port),
          HOST: '127.0.0.1',
          // The victim's and the attacker's keys: unlimited, at a rate the load cannot reach.
          PLAN_UNLIMITED_RATE_LIMIT: '100000000',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      }),
    );
    this.child = child;
    child.once('exit', () => (this.exitedAt = Date.now()));
    child.stderr?.on('data', (d: Buffer) => {
      this.stderrTail.push(...d.toString().split('\n').filter(Boolean));
      this.stderrTail = this.stderrTail.slice(-40);
    });
    for (let i = 0; i < 300; i++) {
      if (!this.alive()) {
        throw new Error(`the service exited while starting:\n${this.stderrTail.join('\n')}`);
      }
      const answer = await httpOnce(
        this.port,
        { kind: 'http', method: 'GET', path: '/metrics', headers: {} },
        2000,
      );
      if (answer.status === 200) return;
      await sleep(50);
    }
    throw new Error('the service did not answer /metrics within 15 s');
  }

  async stop(): Promise<void> {
    if (this.child) await stop(this.child);
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Waits up to `ms` for the process to exit; true when it has. */
  async exited(ms: number): Promise<boolean> {
    for (let waited = 0; waited < ms && this.alive(); waited += 20) await sleep(20);
    return !this.alive();
  }

  /** The error line of the crash (e.g. `URIError: Failed to decode param '%ZZ'`). */
  crashLine(): string | undefined {
    return (
      this.stderrTail.find((l) => /^\w*Error\b/.test(l.trim())) ??
      this.stderrTail.find((l) => l.trim())
    );
  }

  adminKey(): string {
    const file = join(this.dataDir, 'initial-api-key');
    if (!existsSync(file)) throw new Error(`no ${file}: the store was not empty at first start`);
    return readFileSync(file, 'utf8').trim();
  }

  async createKey(admin: string, name: string, plan: string): Promise<string> {
    const answer = await httpOnce(this.port, {
      kind: 'http',
      method: 'POST',
      path: '/api/v1/auth/api-keys',
      headers: { ...json, ...bearer(admin) },
      body: Buffer.from(JSON.stringify({ name, scope_template: 'standard', plan })),
    });
    if (answer.status !== 201) {
      throw new Error(
        `creating key ${name}: ${answer.status ?? answer.error} ${answer.body.slice(0, 200)}`,
      );
    }
    return (JSON.parse(answer.body) as { key: string }).key;
  }

  /** `count` more keys through the HTTP API, 8 at a time; bounded by a deadline. */
  async createMany(
    admin: string,
    count: number,
    deadlineMs = 300_000,
  ): Promise<{ created: number; ms: number }> {
    const started = Date.now();
    let next = 0;
    let created = 0;
    const body = (i: number) =>
      Buffer.from(JSON.stringify({ name: `bulk-${i}`, scope_template: 'standard', plan: 'free' }));
    const worker = async () => {
      while (next < count && Date.now() - started < deadlineMs && this.alive()) {
        const i = next++;
        const answer = await httpOnce(this.port, {
          kind: 'http',
          method: 'POST',
          path: '/api/v1/auth/api-keys',
          headers: { ...json, ...bearer(admin) },
          body: body(i),
        });
        if (answer.status === 201) created++;
        else if (answer.status === 429) {
          next--;
          await sleep(200);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    return { created, ms: Date.now() - started };
  }

  /** Scrapes /metrics: the event-loop delay over the window since the previous scrape. */
  async loopDelay(): Promise<{ maxMs?: number; p99Ms?: number } | undefined> {
    if (!this.alive()) return undefined;
    const answer = await httpOnce(
      this.port,
      { kind: 'http', method: 'GET', path: '/metrics', headers: {} },
      15_000,
    );
    if (answer.status !== 200) return undefined;
    const metric = (name: string) => {
      const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(answer.body)?.[1];
      return value === undefined ? undefined : Math.round(Number(value) * 1e5) / 100;
    };
    return {
      maxMs: metric('nodejs_eventloop_lag_max_seconds'),
      p99Ms: metric('nodejs_eventloop_lag_p99_seconds'),
    };
  }
}

// ---------------------------------------------------------------- phases

interface Solo {
  n: number;
  p50Ms?: number;
  maxMs?: number;
  statuses: Record<string, number>;
  sample?: string;
  loopMaxMs?: number;
  loopP99Ms?: number;
  crashed?: { afterRequest: number; firstAnswer?: string; error?: string };
  /** Class 7: one entry per kind of junk. */
  cases?: {
    name: string;
    p50Ms?: number;
    maxMs?: number;
    statuses: Record<string, number>;
    sample?: string;
  }[];
  /** Class 6: JSON-RPC answers in one 200 answer. */
  rpcAnswersPerBatch?: number;
}

const tally = (answers: Answer[]) =>
  answers.reduce<Record<string, number>>((acc, a) => {
    const k = a.status !== undefined ? String(a.status) : (a.error ?? 'error');
    acc[k] = (acc[k] ?? 0) + 1;
    return acc;
  }, {});

const oneLine = (s: string, max = 160) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}… (${s.length} bytes)` : flat;
};

async function solo(svc: Service, spec: Spec): Promise<Solo> {
  await svc.loopDelay(); // resets the histogram: the window starts here
  const answers: Answer[] = [];
  const cases: Solo['cases'] = [];
  let crashed: Solo['crashed'];
  const send = (payload: Buffer | undefined) =>
    spec.kind === 'http' ? httpOnce(svc.port, spec) : rawOnce(svc.port, payload!);
  const runs: { name?: string; payload?: Buffer }[] =
    spec.kind === 'http' ? [{}] : spec.cases.map((c) => ({ name: c.name, payload: c.payload }));
  outer: for (const run of runs) {
    const mine: Answer[] = [];
    for (let i = 0; i < SOLO_N; i++) {
      const answer = await send(run.payload);
      answers.push(answer);
      mine.push(answer);
      if ((answer.error || answer.status === undefined) && (await svc.exited(300))) {
        const first = answers.find((a) => a.status !== undefined);
        crashed = {
          afterRequest: answers.length - 1,
          firstAnswer: first ? `${first.status} ${oneLine(first.body, 100)}` : undefined,
          error: svc.crashLine(),
        };
        break outer;
      }
    }
    if (run.name) {
      const ok = mine.filter((a) => a.status !== undefined);
      cases.push({
        name: run.name,
        p50Ms: ok.length ? median(ok.map((a) => a.ms)) : undefined,
        maxMs: ok.length ? Math.max(...ok.map((a) => a.ms)) : undefined,
        statuses: tally(mine),
        sample: ok[0] ? `${ok[0].status} ${oneLine(ok[0].body) || '(empty body)'}` : mine[0]?.error,
      });
    }
  }
  if (!crashed && (await svc.exited(300))) {
    crashed = { afterRequest: answers.length, error: svc.crashLine() };
  }
  const loop = crashed ? undefined : await svc.loopDelay();
  const answered = answers.filter((a) => a.status !== undefined);
  const first = answered[0];
  let rpcAnswersPerBatch: number | undefined;
  const ok = answered.find((a) => a.status === 200);
  if (spec.kind === 'http' && spec.path === '/mcp' && ok) {
    try {
      const parsed = JSON.parse(ok.body) as unknown;
      rpcAnswersPerBatch = Array.isArray(parsed) ? parsed.length : 1;
    } catch {
      rpcAnswersPerBatch = undefined;
    }
  }
  return {
    n: answers.length,
    p50Ms: answered.length ? median(answered.map((a) => a.ms)) : undefined,
    maxMs: answered.length ? Math.max(...answered.map((a) => a.ms)) : undefined,
    statuses: tally(answers),
    sample: first ? `${first.status} ${oneLine(first.body) || '(empty body)'}` : answers[0]?.error,
    loopMaxMs: loop?.maxMs,
    loopP99Ms: loop?.p99Ms,
    crashed,
    cases: cases.length ? cases : undefined,
    rpcAnswersPerBatch,
  };
}

interface Load {
  rps: number;
  total: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

const load = (r: CannonResult): Load => ({
  rps: Math.round(r.requests.average),
  total: r.requests.total,
  p50: r.latency.p50,
  p99: r.latency.p99,
  max: r.latency.max,
  non2xx: r.non2xx,
  errors: r.errors,
  timeouts: r.timeouts,
});

function victim(port: number, key: string, durationS: number): Promise<Load> {
  const run = autocannon({
    url: `http://127.0.0.1:${port}${GREET}`,
    method: 'POST',
    headers: { ...json, ...bearer(key) },
    body: VICTIM_BODY,
    connections: VICTIM_CONNECTIONS,
    duration: durationS,
  });
  return Promise.resolve(run).then(load);
}

interface AttackerOrder {
  classId: number;
  port: number;
  keys: Keys;
  durationS: number;
}

interface AttackerReport {
  requests: number;
  durationS: number;
  statuses: Record<string, number>;
  errors: number;
}

interface Attack {
  victim: Load;
  attacker?: AttackerReport;
  loopMaxMs?: number;
  loopP99Ms?: number;
  crashed?: string;
}

/** The attacker runs in its own process so that its client-side work does not delay the victim's. */
async function attack(svc: Service, classId: number, keys: Keys): Promise<Attack> {
  const order: AttackerOrder = { classId, port: svc.port, keys, durationS: DURATION + 1 };
  // The window of the event-loop figures starts before the attack: a scrape once the attack runs
  // could wait behind it and push the victim's window past the attacker's.
  await svc.loopDelay();
  const child = trackChild(
    spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', __filename], {
      cwd: ROOT,
      env: { ...process.env, BENCH_ADV_ATTACKER: JSON.stringify(order) },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  try {
    for (let i = 0; i < 300 && !out.includes('ready\n'); i++) {
      if (child.exitCode !== null) throw new Error('the attacker exited before it was ready');
      await sleep(50);
    }
    if (!out.includes('ready\n')) throw new Error('the attacker was not ready within 15 s');
    await sleep(300);
    const measured = await victim(svc.port, keys.victim, DURATION);
    const exitedEarly = !svc.alive();
    const loop = await svc.loopDelay();
    for (let i = 0; i < 400 && child.exitCode === null; i++) await sleep(50);
    const line = out.split('\n').find((l) => l.startsWith('{'));
    return {
      victim: measured,
      attacker: line ? (JSON.parse(line) as AttackerReport) : undefined,
      loopMaxMs: loop?.maxMs,
      loopP99Ms: loop?.p99Ms,
      crashed: exitedEarly || !svc.alive() ? (svc.crashLine() ?? 'exited') : undefined,
    };
  } finally {
    await stop(child);
  }
}

/** In the attacker process: send the class flat out on 8 connections, print a JSON report. */
async function attackerMain(order: AttackerOrder): Promise<void> {
  const cls = CLASSES.find((c) => c.id === order.classId)!;
  const spec = cls.spec(order.keys);
  process.stdout.write('ready\n');
  if (spec.kind === 'http') {
    const r = await autocannon({
      url: `http://127.0.0.1:${order.port}${spec.path}`,
      method: spec.method,
      headers: spec.headers,
      body: spec.body,
      connections: ATTACK_CONNECTIONS,
      duration: order.durationS,
      ...(spec.randomKey
        ? {
            requests: [
              {
                setupRequest: (req: { headers?: Record<string, string> }) => ({
                  ...req,
                  headers: { ...req.headers, Authorization: `Bearer ${randomKey()}` },
                }),
              },
            ],
          }
        : {}),
    });
    const statuses = Object.fromEntries(
      Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]),
    );
    const report: AttackerReport = {
      requests: r.requests.total,
      durationS: r.duration,
      statuses,
      errors: r.errors + r.timeouts,
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  const deadline = Date.now() + order.durationS * 1000;
  const answers: Answer[] = [];
  const started = Date.now();
  const loop = async (offset: number) => {
    for (let i = offset; Date.now() < deadline && i < 10_000_000; i++) {
      answers.push(await rawOnce(order.port, spec.cases[i % spec.cases.length].payload, 2000));
    }
  };
  await Promise.all(Array.from({ length: ATTACK_CONNECTIONS }, (_, i) => loop(i)));
  const report: AttackerReport = {
    requests: answers.length,
    durationS: (Date.now() - started) / 1000,
    statuses: tally(answers),
    errors: answers.filter((a) => a.status === undefined).length,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

// ---------------------------------------------------------------- one class on one backend

interface ClassResult {
  id: number;
  name: string;
  title: string;
  backend: string;
  solo: Solo;
  fewKeysSolo?: Solo;
  keysCreated?: { created: number; ms: number };
  quiet?: Load;
  attack?: Attack;
  costMs?: number;
  /** The cost goal of the class: COST_GOAL_MS, or MCP_COST_GOAL_MS for an MCP POST. */
  goalMs: number;
  p99Ratio?: number;
  costOk: boolean;
  victimOk: boolean;
  /**
   * MCP classes: JSON-RPC messages a second answered (2xx) under attack, the POSTs a second refused
   * (4xx), and the free plan's limit when the class's key is a free one.
   */
  rpcPerSecond?: number;
  rejectedPerSecond?: number;
  freeLimit?: number;
}

async function runClass(svc: Service, cls: AttackClass, keys: Keys): Promise<ClassResult> {
  const spec = cls.spec(keys);
  const result: ClassResult = {
    id: cls.id,
    name: cls.name,
    title: cls.title,
    backend: svc.backend.name,
    solo: { n: 0, statuses: {} },
    goalMs: costGoalOf(cls),
    costOk: false,
    victimOk: false,
  };
  const warm = async () => {
    await svc.restart();
    if (WARMUP > 0) await victim(svc.port, keys.victim, WARMUP);
    await sleep(500);
  };
  if (cls.id === 5) {
    await warm();
    result.fewKeysSolo = await solo(svc, spec);
    log(`  /health with the few keys there are: p50 ${result.fewKeysSolo.p50Ms} ms`);
    result.keysCreated = await svc.createMany(keys.admin, KEYS);
    log(`  created ${result.keysCreated.created} keys in ${result.keysCreated.ms} ms`);
  }
  await warm();
  result.solo = await solo(svc, spec);
  log(
    `  solo: p50 ${result.solo.p50Ms} ms, max ${result.solo.maxMs} ms, loop max ${result.solo.loopMaxMs} ms, ` +
      `${JSON.stringify(result.solo.statuses)}${result.solo.crashed ? `, CRASHED: ${result.solo.crashed.error}` : ''}`,
  );
  if (!svc.alive()) await svc.start();
  await sleep(500);
  result.quiet = await victim(svc.port, keys.victim, DURATION);
  log(
    `  victim quiet: ${result.quiet.rps} req/s, p50 ${result.quiet.p50} ms, p99 ${result.quiet.p99} ms`,
  );
  await sleep(500);
  result.attack = await attack(svc, cls.id, keys);
  const v = result.attack.victim;
  log(
    `  victim under attack: ${v.rps} req/s, p50 ${v.p50} ms, p99 ${v.p99} ms, errors ${v.errors + v.timeouts}; ` +
      `attacker ${JSON.stringify(result.attack.attacker?.statuses)}${result.attack.crashed ? `; CRASHED: ${result.attack.crashed}` : ''}`,
  );
  const stall =
    result.solo.loopMaxMs === undefined ? 0 : Math.max(0, result.solo.loopMaxMs - LOOP_TICK_MS);
  const soloCost = Math.max(
    result.solo.p50Ms ?? 0,
    ...(result.solo.cases ?? []).map((c) => c.p50Ms ?? 0),
  );
  result.costMs = result.solo.crashed
    ? undefined
    : Math.round(Math.max(soloCost, stall) * 100) / 100;
  result.costOk = result.costMs !== undefined && result.costMs <= result.goalMs;
  result.p99Ratio =
    v.total === 0 || !result.quiet.p99
      ? undefined
      : Math.round((v.p99 / result.quiet.p99) * 100) / 100;
  result.victimOk =
    !result.attack.crashed &&
    v.errors + v.timeouts === 0 &&
    result.p99Ratio !== undefined &&
    result.p99Ratio <= P99_GOAL_RATIO;
  const a = result.attack.attacker;
  if (cls.mcp && a && a.durationS > 0) {
    const count = (from: number, to: number) =>
      Object.entries(a.statuses)
        .filter(([status]) => Number(status) >= from && Number(status) < to)
        .reduce((sum, [, n]) => sum + n, 0);
    const perSecond = (n: number) => Math.round((n / a.durationS) * 10) / 10;
    result.rpcPerSecond = perSecond(count(200, 300) * cls.mcp.messages);
    result.rejectedPerSecond = perSecond(count(400, 500));
    if (cls.mcp.free) result.freeLimit = 5;
  }
  await svc.stop();
  return result;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

async function runBackend(backend: Backend, ids: number[]): Promise<ClassResult[]> {
  const svc = new Service(backend);
  const results: ClassResult[] = [];
  try {
    await svc.start();
    const admin = svc.adminKey();
    const keys: Keys = {
      admin,
      victim: await svc.createKey(admin, 'victim', 'unlimited'),
      attacker: await svc.createKey(admin, 'attacker', 'unlimited'),
      free: await svc.createKey(admin, 'mcp-free', 'free'),
    };
    // /health goes last: the keys it needs stay in the store.
    const order = [...ids.filter((id) => id !== 5), ...ids.filter((id) => id === 5)];
    for (const id of order) {
      const cls = CLASSES.find((c) => c.id === id);
      if (!cls) continue;
      log(`[${backend.name}] class ${cls.id}: ${cls.title}`);
      try {
        results.push(await runClass(svc, cls, keys));
      } catch (error) {
        log(`  failed: ${(error as Error).message}`);
        await svc.stop();
      }
    }
  } finally {
    await svc.stop();
    removeDir(svc.dataDir);
  }
  return results;
}

/** The webhook case on a service of its own (bench/webhook-isolation.ts). */
async function runWebhooks(
  backend: Backend,
): Promise<{ store: string; result: WebhookIsolation }[]> {
  if (!WEBHOOK_STORES.includes(backend.name)) return [];
  const svc = new Service({ ...backend, env: { ...backend.env, ...WEBHOOK_BENCH_ENV } });
  try {
    await svc.start();
    log(`[${backend.name}] webhooks: a healthy endpoint beside a hung receiver and a flood`);
    return [{ store: backend.name, result: await webhookIsolation(svc.port, svc.adminKey()) }];
  } catch (error) {
    log(`  failed: ${(error as Error).message}`);
    return [];
  } finally {
    await svc.stop();
    removeDir(svc.dataDir);
  }
}

// ---------------------------------------------------------------- report

const fmt = (x: number | undefined, digits = 1) =>
  x === undefined
    ? '–'
    : x >= 100
      ? String(Math.round(x))
      : String(Math.round(x * 10 ** digits) / 10 ** digits);

function table(results: ClassResult[]): string {
  const control = new Map(
    results.filter((r) => r.id === 0).map((r) => [r.backend, r.attack?.victim.p99]),
  );
  const rows = results.map((r) => {
    const v = r.attack?.victim;
    const statuses = Object.entries(r.solo.statuses)
      .map(([k, n]) => `${k}×${n}`)
      .join(' ');
    const cost = r.solo.crashed
      ? `crashed (after request ${r.solo.crashed.afterRequest})`
      : `${fmt(r.solo.p50Ms)} / ${fmt(r.solo.maxMs)}`;
    const ctl = control.get(r.backend);
    const failed = v ? v.errors + v.timeouts : 0;
    const victimAttack = r.attack?.crashed
      ? `crashed; ${v?.rps ?? 0} req/s, ${failed} errors`
      : v?.total === 0
        ? `starved: no answer within ${DURATION} s${failed ? `, ${failed} errors` : ''}`
        : `${fmt(v?.p50, 0)} / ${fmt(v?.p99, 0)} ms, ${v?.rps} req/s${failed ? `, ${failed} errors` : ''}`;
    const verdict =
      r.id === 0 ? 'reference' : `${r.costOk ? 'PASS' : 'MISS'} / ${r.victimOk ? 'PASS' : 'MISS'}`;
    return (
      `| ${r.id} ${r.name} | ${r.backend} | ${cost} | ${fmt(r.solo.loopMaxMs)} | ${statuses} | ` +
      `${fmt(r.quiet?.p50, 0)} / ${fmt(r.quiet?.p99, 0)} ms, ${r.quiet?.rps} req/s | ${victimAttack} | ` +
      `${r.p99Ratio === undefined ? '–' : `${r.p99Ratio} ×`} | ` +
      `${ctl && v && r.id !== 0 && r.p99Ratio !== undefined ? `${Math.round((v.p99 / ctl) * 100) / 100} ×` : '–'} | ${verdict} |`
    );
  });
  return [
    `| class | store | solo p50 / max ms | loop max ms | solo statuses | victim quiet p50 / p99, req/s | victim under attack p50 / p99, req/s | p99 ratio | p99 vs control | cost ≤ ${COST_GOAL_MS} ms (MCP ${MCP_COST_GOAL_MS}) / p99 ≤ 2 × |`,
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

function notes(results: ClassResult[]): string[] {
  const lines: string[] = [];
  for (const r of results) {
    const tag = `- ${r.id} ${r.name} (${r.backend})`;
    if (r.solo.crashed) {
      lines.push(
        `${tag}: the process died after request ${r.solo.crashed.afterRequest}` +
          `${r.solo.crashed.firstAnswer ? ` (it answered ${r.solo.crashed.firstAnswer} first)` : ''}: ${r.solo.crashed.error}`,
      );
    } else if (r.solo.sample && r.id !== 7) {
      lines.push(`${tag}: answer ${r.solo.sample}`);
    }
    for (const c of r.solo.cases ?? []) {
      lines.push(`${tag}, ${c.name}: ${c.sample} (p50 ${fmt(c.p50Ms)} ms, max ${fmt(c.maxMs)} ms)`);
    }
    if (r.fewKeysSolo) {
      lines.push(
        `${tag}: /health before the bulk keys p50 ${fmt(r.fewKeysSolo.p50Ms)} ms, loop max ${fmt(r.fewKeysSolo.loopMaxMs)} ms; ` +
          `after ${r.keysCreated?.created} more keys (created in ${((r.keysCreated?.ms ?? 0) / 1000).toFixed(1)} s) p50 ${fmt(r.solo.p50Ms)} ms`,
      );
    }
    if (r.rpcPerSecond !== undefined) {
      const free =
        r.freeLimit === undefined
          ? ''
          : `; the free plan allows ${r.freeLimit}/s: ${r.rpcPerSecond <= r.freeLimit ? 'PASS' : 'MISS'}`;
      lines.push(
        `${tag}: under attack ${r.rpcPerSecond} JSON-RPC messages/s answered (2xx), ` +
          `${r.rejectedPerSecond} POSTs/s refused (4xx)${free}`,
      );
    }
    if (r.attack?.attacker) {
      const a = r.attack.attacker;
      lines.push(
        `${tag}: attacker sent ${a.requests} in ${a.durationS.toFixed(1)} s: ${JSON.stringify(a.statuses)}` +
          `${a.errors ? `, ${a.errors} errors` : ''}; loop max under attack ${fmt(r.attack.loopMaxMs)} ms`,
      );
    }
  }
  return lines;
}

async function main(): Promise<void> {
  installCleanup();
  if (!existsSync(join(APP_DIR, 'dist/main.js'))) {
    throw new Error(`${APP_DIR}/dist/main.js is missing: build first (npx nest build)`);
  }
  const started = Date.now();
  const machineBefore = machine();
  const results: ClassResult[] = [];
  const webhooks: { store: string; result: WebhookIsolation }[] = [];
  const sqlite: Backend = { name: 'sqlite', env: {} };
  if (SQLITE_CLASSES.length) results.push(...(await runBackend(sqlite, SQLITE_CLASSES)));
  webhooks.push(...(await runWebhooks(sqlite)));
  if (REDIS_CLASSES.length || WEBHOOK_STORES.includes('redis')) {
    const redis = await startRedis();
    if (!redis) log('redis-server is not installed: the Redis runs are skipped');
    else {
      const backend: Backend = { name: 'redis', env: { REDIS_URL: redis.url } };
      try {
        if (REDIS_CLASSES.length) results.push(...(await runBackend(backend, REDIS_CLASSES)));
        webhooks.push(...(await runWebhooks(backend)));
      } finally {
        await redis.stop();
      }
    }
  }
  results.sort((a, b) => a.id - b.id || a.backend.localeCompare(b.backend));
  const issuer: IssuerResult[] = ISSUER_PHASE ? await issuerPhase(APP_DIR, log) : [];
  const report = {
    date: new Date().toISOString(),
    machine: { ...machineBefore, loadavg1AtEnd: machine().loadavg1 },
    settings: {
      appDir: APP_DIR,
      durationS: DURATION,
      soloN: SOLO_N,
      warmupS: WARMUP,
      keys: KEYS,
      victimConnections: VICTIM_CONNECTIONS,
      attackConnections: ATTACK_CONNECTIONS,
      goals: { costMs: COST_GOAL_MS, mcpCostMs: MCP_COST_GOAL_MS, p99Ratio: P99_GOAL_RATIO },
    },
    wallClockS: Math.round((Date.now() - started) / 1000),
    results,
    issuer,
    webhooks,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench/results/adversarial-latest.json'),
    JSON.stringify(report, null, 2),
  );
  const hostile = results.filter((r) => r.id !== 0);
  process.stdout.write(
    [
      table(results),
      '',
      ...notes(results),
      '',
      ...(webhooks.length ? [webhookTable(webhooks), ''] : []),
      `Goal: no REST class costs more than ${COST_GOAL_MS} ms of event loop, no MCP class more than ${MCP_COST_GOAL_MS} ms: ` +
        `${
          hostile.filter((r) => !r.costOk).length
            ? `MISS (${hostile
                .filter((r) => !r.costOk)
                .map((r) => `${r.id}/${r.backend}`)
                .join(', ')})`
            : 'PASS'
        }`,
      `Goal: the victim's p99 stays within ${P99_GOAL_RATIO} × its quiet value: ` +
        `${
          hostile.filter((r) => !r.victimOk).length
            ? `MISS (${hostile
                .filter((r) => !r.victimOk)
                .map((r) => `${r.id}/${r.backend}`)
                .join(', ')})`
            : 'PASS'
        }`,
      ...(issuer.length
        ? [
            '',
            issuerTable(issuer),
            '',
            `Goal: the server's RSS stays under ${ISSUER_RSS_GOAL_MB} MB while it refuses a hostile issuer's answer, its tokens 503: ` +
              `${issuer.every((r) => r.ok) ? 'PASS' : 'MISS'}`,
          ]
        : []),
      `Wall clock ${report.wallClockS} s; results in bench/results/adversarial-latest.json`,
      '',
    ].join('\n'),
  );
}

const order = process.env.BENCH_ADV_ATTACKER;
(order ? attackerMain(JSON.parse(order) as AttackerOrder) : main()).catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
