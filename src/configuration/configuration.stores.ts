import { Provider } from '@nestjs/common';
import { StoreMakers, storeProvider } from '../kernel/store/store.module';
import { OverrideStore } from './override.store';
import { RedisOverrideStore } from './redis-override.store';
import { SqliteOverrideStore } from './sqlite-override.store';

/** The configuration's overrides (`config_set`), on the process's backend. */
export const OVERRIDE_STORE: StoreMakers<OverrideStore> = {
  sqlite: (sqlite) => new SqliteOverrideStore(sqlite),
  redis: (redis) => RedisOverrideStore.open(redis),
};

export const CONFIGURATION_STORES: Provider[] = [storeProvider(OverrideStore, OVERRIDE_STORE)];
