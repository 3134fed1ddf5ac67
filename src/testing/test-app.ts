import type { INestApplication, Type } from '@nestjs/common';
import { Test, TestingModuleBuilder } from '@nestjs/testing';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { __resetOutOfContextForTests } from 'nestjs-pino/PinoLogger';
import request from 'supertest';
import type { App } from 'supertest/types';
import { rootModule } from '../app.module';
import { configureApp, readyToServe } from '../app.setup';
import { httpPlatform } from '../kernel/http/platform';
import { ENVIRONMENT, loadSettings } from '../kernel/settings/settings';
import { LOG_DESTINATION } from '../logging';
import { INITIAL_KEY_FILE } from '../subjects';
import { connectMcp, McpEra, McpTestClient } from './mcp-client';
import { RedisServer } from './redis-server';

/** Collects the JSON log lines an app writes, so tests can assert on them. */
export class LogCapture {
  readonly lines: string[] = [];

  write(chunk: string): boolean {
    this.lines.push(...chunk.split('\n').filter(Boolean));
    return true;
  }

  records(): Record<string, unknown>[] {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  text(): string {
    return this.lines.join('\n');
  }
}

export interface TestAppOptions {
  /**
   * The tool modules the app serves (a team's own, `defineTool`'s or modules): by default this
   * service's list (`src/tools.ts`).
   */
  tools?: Type<unknown>[];
  /** Modules mounted beside the app's own (a pipeline step, a provider to observe). */
  imports?: Type<unknown>[];
  /**
   * `sqlite` (the default): a store in the data directory. `redis`: a `redis-server` (Debian's, on
   * the PATH) the kit starts on a free loopback port and stops on close, unless `env` names a
   * Redis already (`REDIS_URL`, `REDIS_SENTINELS`, `REDIS_CLUSTER_NODES`).
   */
  store?: 'sqlite' | 'redis';
  /** The HTTP adapter: `express` (the default) or `fastify`; `env.HTTP_ADAPTER` says too. */
  adapter?: 'express' | 'fastify';
  /** The app's environment (docs/configuration.md); the test process's own is not read. */
  env?: Record<string, string>;
  /** The YAML of CONFIG_FILE (plans, tools' sections), written into the data directory. */
  config?: string;
  /** Where the app keeps its data: a new temporary directory by default. */
  dataDir?: string;
  /** Overrides of the app's providers, before it is compiled. */
  configure?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
}

/** A key made through the API: its text (shown once) and its id. */
export interface TestKey {
  key: string;
  id: string;
}

/** A run made through the API: its token (shown once) and its id. */
export interface TestRun {
  token: string;
  id: string;
}

export interface TestApp {
  app: INestApplication<App>;
  dataDir: string;
  env: Record<string, string>;
  /** The administrator key the app made on its first start. */
  adminKey: string;
  logs: LogCapture;
  /** A supertest request on the app (no port needed): `t.http().post(...)`. */
  http(): ReturnType<typeof request>;
  /** `{ Authorization: 'Bearer <key>' }`. */
  bearer(key: string): { Authorization: string };
  /** The app's base URL on loopback (it listens on a free port on first use). */
  url(): Promise<string>;
  /** Creates a key with the admin key (`POST /api/v1/auth/api-keys`); returns its text. */
  createKey(body?: Record<string, unknown>): Promise<string>;
  /** Creates a key with the admin key; returns its text and id. */
  createKeyWithId(body?: Record<string, unknown>): Promise<TestKey>;
  /** Creates a run with `key` (`POST /api/v1/runs`): `{ budget, ttl_seconds, scopes, ... }`. */
  createRun(key: string, body: Record<string, unknown>): Promise<TestRun>;
  /** Calls a tool over REST: `POST /api/v1/services/<tool>` with `key` (a supertest request). */
  callTool(tool: string, input: object, key: string): request.Test;
  /** An official MCP client of `era` (`modern` 2026, `legacy` or `v1` 2025) on the app's `/mcp`. */
  mcp(key: string, era?: McpEra): Promise<McpTestClient>;
  /** What `key` has used (`GET /api/v1/usage` with it). */
  usage(key: string): Promise<Record<string, unknown>>;
  /** The ledger's entries of a query (`GET /api/v1/ledger` with the admin key), every page. */
  ledger(query?: Record<string, string>): Promise<Record<string, unknown>[]>;
  /** Closes the app, its MCP clients and the Redis the kit started. */
  close(): Promise<void>;
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'tis-test-'));
}

const REDIS_VARIABLES = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'];

/** The store's variables: a Redis the kit starts when asked for one and `env` names none. */
async function storeEnv(
  options: TestAppOptions,
): Promise<{ env: Record<string, string>; redis?: RedisServer }> {
  const named = REDIS_VARIABLES.some((name) => options.env?.[name]);
  if (options.store !== 'redis' || named) return { env: {} };
  const redis = await RedisServer.start({ appendonly: false });
  const prefix = `tis-kit:${randomBytes(6).toString('hex')}:`;
  return { env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix }, redis };
}

/**
 * Starts the real application in this process, as `npm start` does (every module, guard and
 * pipe), with the tools of `options.tools`, on SQLite in a temporary directory or on Redis.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? tempDataDir();
  const store = await storeEnv(options);
  const env: Record<string, string> = {
    ...store.env,
    ...(options.adapter ? { HTTP_ADAPTER: options.adapter } : {}),
    DATA_DIR: dataDir,
    ...options.env,
  };
  if (options.config !== undefined) {
    env.CONFIG_FILE = join(dataDir, 'config.yaml');
    writeFileSync(env.CONFIG_FILE, options.config);
  }
  const logs = new LogCapture();
  // nestjs-pino keeps the first app's logger for logs outside a request; each test app gets its own.
  __resetOutOfContextForTests();
  let builder = Test.createTestingModule({
    imports: [rootModule('server', { tools: options.tools, imports: options.imports })],
  })
    .overrideProvider(ENVIRONMENT)
    .useValue(env)
    .overrideProvider(LOG_DESTINATION)
    .useValue(logs);
  if (options.configure) builder = options.configure(builder);
  let app: INestApplication<App>;
  try {
    const moduleRef = await builder.compile();
    const settings = loadSettings(env);
    app = moduleRef.createNestApplication<INestApplication<App>>(
      httpPlatform(settings.httpAdapter).createAdapter(settings),
      { bufferLogs: true, bodyParser: false },
    );
    configureApp(app);
    await app.init();
    await readyToServe(app);
  } catch (error) {
    await store.redis?.destroy();
    throw error;
  }
  return testApp(app, { dataDir, env, logs, redis: store.redis });
}

function testApp(
  app: INestApplication<App>,
  parts: { dataDir: string; env: Record<string, string>; logs: LogCapture; redis?: RedisServer },
): TestApp {
  const adminKey = readFileSync(join(parts.dataDir, INITIAL_KEY_FILE), 'utf8').trim();
  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
  const http = () => request(app.getHttpServer());
  const clients: McpTestClient[] = [];
  const created = async <T>(path: string, key: string, body: object): Promise<T> => {
    const res = await http().post(path).set(bearer(key)).send(body);
    if (res.status !== 201)
      throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as T;
  };
  const createKeyWithId = (body: Record<string, unknown> = {}) =>
    created<TestKey>('/api/v1/auth/api-keys', adminKey, { name: 'test', ...body });
  const url = async () => {
    const server = app.getHttpServer() as Server;
    if (!server.listening) await app.listen(0, '127.0.0.1');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const read = async (path: string, key: string) => {
    const res = await http().get(path).set(bearer(key));
    if (res.status !== 200)
      throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Record<string, unknown>;
  };
  return {
    app,
    ...parts,
    adminKey,
    http,
    bearer,
    url,
    async createKey(body = {}) {
      return (await createKeyWithId(body)).key;
    },
    createKeyWithId,
    createRun: (key, body) => created<TestRun>('/api/v1/runs', key, body),
    callTool: (tool, input, key) =>
      http().post(`/api/v1/services/${tool}`).set(bearer(key)).send(input),
    async mcp(key, era = 'modern') {
      const client = await connectMcp(new URL('/mcp', await url()), { key, era });
      clients.push(client);
      return client;
    },
    usage: (key) => read('/api/v1/usage', key),
    async ledger(query = {}) {
      const entries: Record<string, unknown>[] = [];
      let cursor: string | null = null;
      do {
        const params = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) });
        const page = await read(`/api/v1/ledger?${params.toString()}`, adminKey);
        entries.push(...(page.entries as Record<string, unknown>[]));
        cursor = page.next_cursor as string | null;
      } while (cursor);
      return entries;
    },
    async close() {
      await Promise.allSettled(clients.map((client) => client.close()));
      try {
        await app.close();
      } finally {
        // The Redis the kit started goes with the app, even when the app's close failed.
        await parts.redis?.destroy();
      }
    },
  };
}
