import { Provider } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import {
  STORE_BACKEND,
  StoreBackend,
  StoreMakers,
  storeProvider,
} from '../kernel/store/store.module';
import { CallCounter } from './call-counter';
import { LocalCallCounter } from './local-call-counter';
import { MemoryRateStore } from './memory-rate.store';
import type { BudgetStorage } from './rate.store';
import { RedisCallCounter } from './redis-call-counter';
import { RedisRateStore } from './redis-rate.store';
import { RedisUsageStore } from './redis-usage.store';
import { SqliteUsageStore } from './sqlite-usage.store';
import { UsageStore } from './usage.store';

/** Usage and credits per key and principal: per day, month and tool. */
export const USAGE_STORE: StoreMakers<UsageStore> = {
  sqlite: (sqlite) => new SqliteUsageStore(sqlite),
  redis: (redis) => new RedisUsageStore(redis),
};

/**
 * Rate windows and token buckets: in this process's memory beside the embedded store (one process
 * serves it), in Redis for every instance.
 */
export const RATE_STORE: StoreMakers<BudgetStorage> = {
  sqlite: () => new MemoryRateStore(),
  redis: (redis) => new RedisRateStore(redis.client),
};

/**
 * The limits' stores on the process's backend: usage and credits, the rate windows
 * (@nestjs/throttler's storage contract: in memory for the embedded store, in Redis for every
 * instance), and the call counter, the one atomic count of a call's rate and credits (in memory
 * then the usage store; or one Redis script).
 */
export const LIMIT_STORES: Provider[] = [
  storeProvider(UsageStore, USAGE_STORE),
  storeProvider(ThrottlerStorage, RATE_STORE),
  {
    provide: CallCounter,
    inject: [STORE_BACKEND, ThrottlerStorage, UsageStore],
    useFactory: (backend: StoreBackend, rate: BudgetStorage, usage: UsageStore): CallCounter =>
      backend.kind === 'sqlite'
        ? new LocalCallCounter(rate, usage)
        : new RedisCallCounter(backend.redis.client),
  },
];
