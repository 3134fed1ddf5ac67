import { Provider } from '@nestjs/common';
import { StoreMakers, storeProvider } from '../kernel/store/store.module';
import { IdempotencyStore } from './idempotency.store';
import { RedisIdempotencyStore } from './redis-idempotency.store';
import { SqliteIdempotencyStore } from './sqlite-idempotency.store';

/** The kept answers of `Idempotency-Key`, on the process's backend. */
export const IDEMPOTENCY_STORE: StoreMakers<IdempotencyStore> = {
  sqlite: (sqlite) => new SqliteIdempotencyStore(sqlite),
  redis: (redis) => new RedisIdempotencyStore(redis),
};

export const IDEMPOTENCY_STORES: Provider[] = [storeProvider(IdempotencyStore, IDEMPOTENCY_STORE)];
