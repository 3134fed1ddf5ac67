import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Settings, SETTINGS } from '../settings/settings';
import { createRedisClient, REDIS_CLIENT, RedisClient } from './redis.connection';
import { RedisStore } from './redis.store';
import { SqliteStore } from './sqlite.store';
import { Store } from './store';

/** The Redis command connection when Redis is configured (any topology); null for the embedded store. */
export function createRedisClientIfConfigured(settings: Settings): RedisClient | null {
  return settings.redis ? createRedisClient(settings, 'commands') : null;
}

/** Redis when configured (given its command connection, which the store then owns), SQLite otherwise. */
export async function createStore(
  settings: Settings,
  redis: RedisClient | null = null,
): Promise<Store> {
  if (!settings.redis) return new SqliteStore(settings.dataDir);
  return RedisStore.open(redis ?? createRedisClient(settings, 'commands'), settings);
}

/**
 * The one store of the process, chosen by the settings: SQLite in DATA_DIR, or Redis (REDIS_URL,
 * REDIS_SENTINELS or REDIS_CLUSTER_NODES). REDIS_CLIENT is exported so that the throttler counts on
 * the same connection (LimitsModule).
 */
@Global()
@Module({
  providers: [
    { provide: REDIS_CLIENT, inject: [SETTINGS], useFactory: createRedisClientIfConfigured },
    { provide: Store, inject: [SETTINGS, REDIS_CLIENT], useFactory: createStore },
  ],
  exports: [Store, REDIS_CLIENT],
})
export class StoreModule implements OnApplicationShutdown {
  constructor(@Inject(Store) private readonly store: Store) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
