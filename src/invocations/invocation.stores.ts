import { Provider } from '@nestjs/common';
import { StoreMakers, storeProvider } from '../kernel/store/store.module';
import { InvocationStore } from './invocation.store';
import { RedisInvocationStore } from './redis-invocation.store';
import { SqliteInvocationStore } from './sqlite-invocation.store';

/** Long-running calls' records and each instance's lease, on the process's backend. */
export const INVOCATION_STORE: StoreMakers<InvocationStore> = {
  sqlite: (sqlite) => new SqliteInvocationStore(sqlite),
  redis: (redis) => new RedisInvocationStore(redis),
};

export const INVOCATION_STORES: Provider[] = [storeProvider(InvocationStore, INVOCATION_STORE)];
