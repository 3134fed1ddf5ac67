import {
  Global,
  Inject,
  InjectionToken,
  Module,
  OnApplicationShutdown,
  Provider,
} from '@nestjs/common';
import { Settings, SETTINGS } from '../settings/settings';
import { createRedisClient, REDIS_CLIENT, RedisClient } from './redis/redis.connection';
import { RedisDatabase } from './redis/redis.database';
import { SqliteDatabase } from './sqlite/sqlite.database';
import { Store } from './store';

/**
 * The process's one backend, opened once at start-up: SQLite in DATA_DIR, or Redis (REDIS_URL,
 * REDIS_SENTINELS or REDIS_CLUSTER_NODES). Each feature makes its own stores on it (`storeOn`).
 */
export type StoreBackend =
  { kind: 'sqlite'; sqlite: SqliteDatabase } | { kind: 'redis'; redis: RedisDatabase };

/** The token of the opened StoreBackend. */
export const STORE_BACKEND = Symbol('STORE_BACKEND');

/** The Redis command connection when Redis is configured (any topology); null for the embedded store. */
export function createRedisClientIfConfigured(settings: Settings): RedisClient | null {
  return settings.redis ? createRedisClient(settings, 'commands') : null;
}

/** Opens the backend the settings choose (given Redis's command connection, which it then owns). */
export async function openBackend(
  settings: Settings,
  redis: RedisClient | null = null,
): Promise<StoreBackend> {
  if (!settings.redis) return { kind: 'sqlite', sqlite: new SqliteDatabase(settings.dataDir) };
  const client = redis ?? createRedisClient(settings, 'commands');
  return { kind: 'redis', redis: await RedisDatabase.open(client, settings) };
}

/** The backend as a whole (health, integrity, close). */
export function storeOf(backend: StoreBackend): Store {
  return backend.kind === 'sqlite' ? backend.sqlite : backend.redis;
}

/** How one concern's store is made on each backend. */
export interface StoreMakers<T> {
  sqlite(sqlite: SqliteDatabase): T | Promise<T>;
  redis(redis: RedisDatabase): T | Promise<T>;
}

/** One concern's store made on the backend: a `make` for either kind. */
export function makeStore<T>(backend: StoreBackend, make: StoreMakers<T>): T | Promise<T> {
  return backend.kind === 'sqlite' ? make.sqlite(backend.sqlite) : make.redis(backend.redis);
}

/** A provider of one concern's store (its abstract class, or a token), made on the process's backend. */
export function storeProvider<T>(
  token: (abstract new (...args: never[]) => T) | InjectionToken,
  make: StoreMakers<T>,
): Provider {
  return {
    provide: token,
    inject: [STORE_BACKEND],
    useFactory: (backend: StoreBackend) => makeStore(backend, make),
  };
}

/**
 * The store of the process: its one backend, which every feature's stores are made on, and the
 * backend as a whole (`Store`). REDIS_CLIENT is exported so that other counters (failed
 * authentications) live on the same connection. Closed last, when the application shuts down.
 */
@Global()
@Module({
  providers: [
    { provide: REDIS_CLIENT, inject: [SETTINGS], useFactory: createRedisClientIfConfigured },
    { provide: STORE_BACKEND, inject: [SETTINGS, REDIS_CLIENT], useFactory: openBackend },
    { provide: Store, inject: [STORE_BACKEND], useFactory: storeOf },
  ],
  exports: [REDIS_CLIENT, STORE_BACKEND, Store],
})
export class StoreModule implements OnApplicationShutdown {
  constructor(@Inject(Store) private readonly store: Store) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
