import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import type Redis from 'ioredis';
import { Settings, SETTINGS } from '../settings/settings';
import { createRedisClient, REDIS_CLIENT } from './redis.connection';
import { RedisStore } from './redis.store';
import { SqliteStore } from './sqlite.store';
import { Store } from './store';

/** The Redis command connection when REDIS_URL is set; null for the embedded store. */
export function createRedisClientIfConfigured(settings: Settings): Redis | null {
  return settings.redisUrl ? createRedisClient(settings, 'commands') : null;
}

/** Redis when REDIS_URL is set (given its command connection, which the store then owns), SQLite otherwise. */
export async function createStore(settings: Settings, redis: Redis | null = null): Promise<Store> {
  if (!settings.redisUrl) return new SqliteStore(settings.dataDir);
  return RedisStore.open(redis ?? createRedisClient(settings, 'commands'), settings);
}

/**
 * The one store of the process, chosen by the settings: SQLite in DATA_DIR, or Redis with REDIS_URL.
 * REDIS_CLIENT is exported so that the throttler counts on the same connection (LimitsModule).
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
