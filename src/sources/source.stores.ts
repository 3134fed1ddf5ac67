import { Provider } from '@nestjs/common';
import { StoreMakers, storeProvider } from '../kernel/store/store.module';
import { RedisSourceStore } from './redis-source.store';
import { SourceStore } from './source.store';
import { SqliteSourceStore } from './sqlite-source.store';

/** The sources made through the API, on the process's backend. */
export const SOURCE_STORE: StoreMakers<SourceStore> = {
  sqlite: (sqlite) => new SqliteSourceStore(sqlite),
  redis: (redis) => new RedisSourceStore(redis),
};

export const SOURCE_STORES: Provider[] = [storeProvider(SourceStore, SOURCE_STORE)];
