import { RedisServer } from './redis';

/**
 * globalSetup of the `e2e-redis` jest project: one redis-server for the whole run. Its environment
 * goes to the workers as E2E_REDIS_SINGLE_ENV; only that project's setup file turns it into
 * TEST_REDIS_ENV, so the plain `e2e` project keeps running on SQLite in the same jest run.
 */
export default async function startSharedRedis(): Promise<void> {
  const server = await RedisServer.start();
  (globalThis as { __e2eRedis?: RedisServer }).__e2eRedis = server;
  process.env.E2E_REDIS_SINGLE_ENV = JSON.stringify({ REDIS_URL: server.url });
}
