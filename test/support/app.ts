import type { INestApplication } from '@nestjs/common';
import {
  startTestApp,
  tempDataDir,
  TestAppOptions as KitOptions,
  TestApp,
} from '../../src/testing';
import { redisTestEnv } from './redis';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export { LogCapture, tempDataDir } from '../../src/testing';
export type { TestApp } from '../../src/testing';

export type TestAppOptions = KitOptions;

/**
 * The shared environment of every test app: when the suite runs against Redis, its URL and a key
 * prefix of the app's data directory's own (see redisTestEnv), so apps never see each other's data.
 */
export function baseEnv(dataDir?: string): Record<string, string> {
  const adapter = process.env.TEST_HTTP_ADAPTER;
  return { ...redisTestEnv(dataDir), ...(adapter ? { HTTP_ADAPTER: adapter } : {}) };
}

/**
 * Starts the real application through the kit (src/testing/, what teams import), on the store and
 * adapter of the jest project that runs the suite (baseEnv: SQLite, or the project's shared Redis).
 */
export function startApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? tempDataDir();
  return startTestApp({ ...options, dataDir, env: { ...baseEnv(dataDir), ...options.env } });
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** The loopback port an app listens on, listening on a free one first if it does not yet. */
export async function listenOnLoopback(app: INestApplication): Promise<number> {
  const server = app.getHttpServer() as Server;
  if (!server.listening) await app.listen(0, '127.0.0.1');
  return (server.address() as AddressInfo).port;
}

export { spawnApp, SpawnedApp, spawnListening } from './spawned-app';
export type { SpawnOptions } from './spawned-app';
