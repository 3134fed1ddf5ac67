import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Settings, SETTINGS } from '../settings/settings';
import { SqliteStore } from './sqlite.store';
import { Store } from './store';

export function createStore(settings: Settings): Store {
  return new SqliteStore(settings.dataDir);
}

/** The one store of the process, chosen by the settings: SQLite in DATA_DIR, or Redis with REDIS_URL. */
@Global()
@Module({
  providers: [{ provide: Store, inject: [SETTINGS], useFactory: createStore }],
  exports: [Store],
})
export class StoreModule implements OnApplicationShutdown {
  constructor(@Inject(Store) private readonly store: Store) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
