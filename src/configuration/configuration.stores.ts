import { storeProvider } from '../kernel/store/store.module';
import { OverrideStore } from './override.store';
import { RedisOverrideStore } from './redis-override.store';
import { SqliteOverrideStore } from './sqlite-override.store';

/** The configuration's overrides (`config_set`), on the process's backend. */
export const OVERRIDE_STORE = storeProvider(OverrideStore, {
  sqlite: (sqlite) => new SqliteOverrideStore(sqlite),
  redis: (redis) => RedisOverrideStore.open(redis),
});
