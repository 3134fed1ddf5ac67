import { Provider } from '@nestjs/common';
import { StoreMakers, storeProvider } from '../kernel/store/store.module';
import { LedgerStore } from './ledger.store';
import { RedisLedgerStore } from './redis-ledger.store';
import { SqliteLedgerStore } from './sqlite-ledger.store';

/** The ledger, as it is read, on the process's backend. */
export const LEDGER_STORE: StoreMakers<LedgerStore> = {
  sqlite: (sqlite) => new SqliteLedgerStore(sqlite),
  redis: (redis) => new RedisLedgerStore(redis),
};

export const LEDGER_STORES: Provider[] = [storeProvider(LedgerStore, LEDGER_STORE)];
