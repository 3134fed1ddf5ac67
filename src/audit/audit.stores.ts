import { Provider } from '@nestjs/common';
import { StoreMakers, storeProvider } from '../kernel/store/store.module';
import { AuditStore } from './audit.store';
import { RedisAuditStore } from './redis-audit.store';
import { SqliteAuditStore } from './sqlite-audit.store';

/** The audit trail's store, on the process's backend. */
export const AUDIT_STORE: StoreMakers<AuditStore> = {
  sqlite: (sqlite) => new SqliteAuditStore(sqlite),
  redis: (redis) => new RedisAuditStore(redis),
};

export const AUDIT_STORES: Provider[] = [storeProvider(AuditStore, AUDIT_STORE)];
