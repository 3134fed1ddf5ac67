import { Provider } from '@nestjs/common';
import { StoreMakers, storeProvider } from '../kernel/store/store.module';
import { RedisRunStore } from './redis-run.store';
import { RunStore } from './run.store';
import { SqliteRunStore } from './sqlite-run.store';

/** Runs on the process's backend. */
export const RUN_STORE: StoreMakers<RunStore> = {
  sqlite: (sqlite) => new SqliteRunStore(sqlite),
  redis: (redis) => new RedisRunStore(redis),
};

export const RUN_STORES: Provider[] = [storeProvider(RunStore, RUN_STORE)];
