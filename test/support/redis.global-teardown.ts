import type { RedisServer } from './redis';

/** globalTeardown of the `e2e-redis` jest project: stops the shared redis-server and removes its files. */
export default async function stopSharedRedis(): Promise<void> {
  await (globalThis as { __e2eRedis?: RedisServer }).__e2eRedis?.destroy();
}
