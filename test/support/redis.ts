import { createHash } from 'node:crypto';
import { resolve } from 'node:path';

export { freePort, RedisServer } from '../../src/testing';
export type { RedisServerOptions } from '../../src/testing';

/**
 * The environment that points an app at the shared Redis of this jest project (REDIS_URL for
 * `e2e-redis`; REDIS_SENTINELS or REDIS_CLUSTER_NODES and passwords for the matrix projects), as
 * its setup file left it in TEST_REDIS_ENV; empty on the SQLite run.
 */
function sharedRedisEnv(): Record<string, string> {
  const json = process.env.TEST_REDIS_ENV;
  return json ? (JSON.parse(json) as Record<string, string>) : {};
}

/** The suite runs against a shared Redis (jest projects `e2e-redis`, `e2e-sentinel`, `e2e-cluster`). */
export function usingSharedRedis(): boolean {
  return Boolean(process.env.TEST_REDIS_ENV);
}

/** The topology of the shared Redis of this run, or undefined on SQLite. */
export function sharedRedisMode(): 'single' | 'sentinel' | 'cluster' | undefined {
  const env = sharedRedisEnv();
  if (env.REDIS_SENTINELS) return 'sentinel';
  if (env.REDIS_CLUSTER_NODES) return 'cluster';
  return env.REDIS_URL ? 'single' : undefined;
}

/**
 * The shared Redis's variables and a key prefix for an app on `dataDir`, when the suite runs
 * against Redis. The prefix follows the data directory: a fresh directory is a fresh, empty store
 * (as with SQLite), an app restarted on the same directory finds its data again, and the CLI given
 * that DATA_DIR works on the same store. Two instances of one deployment share a directory, or pass
 * REDIS_KEY_PREFIX.
 */
export function redisTestEnv(dataDir?: string): Record<string, string> {
  const env = sharedRedisEnv();
  if (!dataDir || !usingSharedRedis()) return env;
  return { ...env, REDIS_KEY_PREFIX: prefixFor(dataDir) };
}

/**
 * setupFiles of a Redis jest project: the environment its globalSetup published under `variable`
 * becomes this worker's TEST_REDIS_ENV. Fails loudly rather than silently run the project on SQLite.
 */
export function useSharedRedis(variable: string): void {
  const env = process.env[variable];
  if (!env)
    throw new Error(`${variable}: the shared Redis of globalSetup is not known to this worker`);
  process.env.TEST_REDIS_ENV = env;
}

export function prefixFor(dataDir: string): string {
  return `tis-test:${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16)}:`;
}
