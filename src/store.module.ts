import {
  Global,
  Inject,
  InjectionToken,
  Module,
  OnApplicationShutdown,
  Provider,
} from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { Settings, SETTINGS } from './kernel/settings/settings';
import {
  CallCounter,
  LocalCallCounter,
  RedisCallCounter,
  MemoryRateStore,
  RedisRateStore,
  RedisUsageStore,
  SqliteUsageStore,
  UsageStore,
} from './limits';
import { AuditStore, RedisAuditStore, SqliteAuditStore } from './audit';
import { IdempotencyStore, RedisIdempotencyStore, SqliteIdempotencyStore } from './idempotency';
import { InvocationStore, RedisInvocationStore, SqliteInvocationStore } from './invocations';
import {
  KeyStore,
  RedisKeyStore,
  SqliteKeyStore,
  PrincipalStore,
  RedisPrincipalStore,
  SqlitePrincipalStore,
} from './subjects';
import { OverrideStore, RedisOverrideStore, SqliteOverrideStore } from './configuration';
import type { BudgetStorage } from './limits';
import {
  createRedisClient,
  REDIS_CLIENT,
  RedisClient,
} from './kernel/store/redis/redis.connection';
import { RedisDatabase } from './kernel/store/redis/redis.database';
import { SqliteDatabase } from './kernel/store/sqlite/sqlite.database';
import { Store } from './kernel/store/store';

/** Every concern of the store, on one backend: what StoreModule provides, and openStore opens. */
export interface Stores {
  backend: Store;
  keys: KeyStore;
  usage: UsageStore;
  rate: BudgetStorage;
  counter: CallCounter;
  idempotency: IdempotencyStore;
  audit: AuditStore;
  overrides: OverrideStore;
  principals: PrincipalStore;
  invocations: InvocationStore;
}

/** The Redis command connection when Redis is configured (any topology); null for the embedded store. */
export function createRedisClientIfConfigured(settings: Settings): RedisClient | null {
  return settings.redis ? createRedisClient(settings, 'commands') : null;
}

/**
 * Every concern on the backend the settings choose, chosen here once: SQLite in DATA_DIR, or Redis
 * (REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES; given its command connection, which the
 * stores then own). No concern's implementation knows of the other backend.
 */
export async function openStore(
  settings: Settings,
  redis: RedisClient | null = null,
): Promise<Stores> {
  if (!settings.redis) {
    const sqlite = new SqliteDatabase(settings.dataDir);
    const usage = new SqliteUsageStore(sqlite);
    const rate = new MemoryRateStore();
    return {
      backend: sqlite,
      keys: new SqliteKeyStore(sqlite),
      usage,
      rate,
      counter: new LocalCallCounter(rate, usage),
      idempotency: new SqliteIdempotencyStore(sqlite),
      audit: new SqliteAuditStore(sqlite),
      overrides: new SqliteOverrideStore(sqlite),
      principals: new SqlitePrincipalStore(sqlite),
      invocations: new SqliteInvocationStore(sqlite),
    };
  }
  const database = await RedisDatabase.open(
    redis ?? createRedisClient(settings, 'commands'),
    settings,
  );
  try {
    const rate = new RedisRateStore(database.client);
    return {
      backend: database,
      keys: new RedisKeyStore(database),
      usage: new RedisUsageStore(database),
      rate,
      counter: new RedisCallCounter(database.client),
      idempotency: new RedisIdempotencyStore(database),
      audit: new RedisAuditStore(database),
      overrides: await RedisOverrideStore.open(database),
      principals: new RedisPrincipalStore(database),
      invocations: new RedisInvocationStore(database),
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}

const STORES = Symbol('STORES');

/** Each concern as a provider of its own, from the one opened set. */
const concern = <K extends keyof Stores>(token: InjectionToken, name: K): Provider => ({
  provide: token,
  inject: [STORES],
  useFactory: (stores: Stores) => stores[name],
});

/**
 * The store of the process, one backend for every concern. REDIS_CLIENT is exported so that
 * other counters (failed authentications) live on the same connection.
 */
@Global()
@Module({
  providers: [
    { provide: REDIS_CLIENT, inject: [SETTINGS], useFactory: createRedisClientIfConfigured },
    { provide: STORES, inject: [SETTINGS, REDIS_CLIENT], useFactory: openStore },
    concern(Store, 'backend'),
    concern(KeyStore, 'keys'),
    concern(UsageStore, 'usage'),
    // @nestjs/throttler's storage contract: rate windows in Redis (every instance) or in memory.
    concern(ThrottlerStorage, 'rate'),
    concern(CallCounter, 'counter'),
    concern(IdempotencyStore, 'idempotency'),
    concern(AuditStore, 'audit'),
    concern(OverrideStore, 'overrides'),
    concern(PrincipalStore, 'principals'),
    concern(InvocationStore, 'invocations'),
  ],
  exports: [
    REDIS_CLIENT,
    Store,
    KeyStore,
    UsageStore,
    ThrottlerStorage,
    CallCounter,
    IdempotencyStore,
    AuditStore,
    OverrideStore,
    PrincipalStore,
    InvocationStore,
  ],
})
export class StoreModule implements OnApplicationShutdown {
  constructor(@Inject(Store) private readonly store: Store) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
