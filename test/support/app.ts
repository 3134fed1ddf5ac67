import { INestApplication, Type } from '@nestjs/common';
import { Test, TestingModuleBuilder } from '@nestjs/testing';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { __resetOutOfContextForTests } from 'nestjs-pino/PinoLogger';
import request from 'supertest';
import type { App } from 'supertest/types';
import { rootModule } from '../../src/app.module';
import { configureApp, readyToServe } from '../../src/app.setup';
import { httpPlatform } from '../../src/kernel/http/platform';
import { INITIAL_KEY_FILE } from '../../src/subjects/initial-key';
import { LOG_DESTINATION } from '../../src/logging/log-control';
import { ENVIRONMENT, loadSettings } from '../../src/kernel/settings/settings';
import { redisTestEnv } from './redis';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  /** Environment of the app; DATA_DIR is filled in. The test process's own environment is not used. */
  env?: Record<string, string>;
  dataDir?: string;
  /** Extra modules mounted beside the server's own (a sample tool, a failing tool, a pipeline step). */
  imports?: Type<unknown>[];
  /** The tool list in place of src/tools.ts's TOOL_MODULES. */
  tools?: Type<unknown>[];
  configure?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
}

export interface TestApp {
  app: INestApplication<App>;
  dataDir: string;
  env: Record<string, string>;
  adminKey: string;
  logs: LogCapture;
  http(): ReturnType<typeof request>;
  /** Creates a key through the API with the admin key; returns its text. */
  createKey(body?: Record<string, unknown>): Promise<string>;
  /** Creates a key through the API with the admin key; returns its text and id. */
  createKeyWithId(body?: Record<string, unknown>): Promise<{ key: string; id: string }>;
  close(): Promise<void>;
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'tis-test-'));
}

/**
 * The shared environment of every test app: when the suite runs against Redis, its URL and a key
 * prefix of the app's data directory's own (see redisTestEnv), so apps never see each other's data.
 */
export function baseEnv(dataDir?: string): Record<string, string> {
  const adapter = process.env.TEST_HTTP_ADAPTER;
  return { ...redisTestEnv(dataDir), ...(adapter ? { HTTP_ADAPTER: adapter } : {}) };
}

/** Starts the real application (rootModule('server') + configureApp) on a fresh or given data directory. */
export async function startApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? tempDataDir();
  const env = { ...baseEnv(dataDir), DATA_DIR: dataDir, ...options.env };
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
  const moduleRef = await builder.compile();
  // The adapter the environment names (HTTP_ADAPTER; the matrix runs the suite on each), as main.ts.
  const settings = loadSettings(env);
  const app = moduleRef.createNestApplication<INestApplication<App>>(
    httpPlatform(settings.httpAdapter).createAdapter(settings),
    { bufferLogs: true, bodyParser: false },
  );
  configureApp(app);
  await app.init();
  await readyToServe(app);
  const adminKey = readFileSync(join(dataDir, INITIAL_KEY_FILE), 'utf8').trim();
  const http = () => request(app.getHttpServer());
  const createKeyWithId = async (body: Record<string, unknown> = {}) => {
    const res = await http()
      .post('/api/v1/auth/api-keys')
      .set('Authorization', `Bearer ${adminKey}`)
      .send({ name: 'test', ...body });
    if (res.status !== 201) {
      throw new Error(`key creation failed: ${res.status} ${JSON.stringify(res.body)}`);
    }
    return res.body as { key: string; id: string };
  };
  return {
    app,
    dataDir,
    env,
    adminKey,
    logs,
    http,
    async createKey(body = {}) {
      return (await createKeyWithId(body)).key;
    },
    createKeyWithId,
    close: () => app.close(),
  };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** The loopback port an app listens on, listening on a free one first if it does not yet. */
export async function listenOnLoopback(app: INestApplication): Promise<number> {
  const server = app.getHttpServer() as Server;
  if (!server.listening) await app.listen(0, '127.0.0.1');
  return (server.address() as AddressInfo).port;
}

export { spawnApp, SpawnedApp } from './spawned-app';
export type { SpawnOptions } from './spawned-app';
