import { storeProvider } from '../kernel/store/store.module';
import { AuditStore } from './audit.store';
import { RedisAuditStore } from './redis-audit.store';
import { SqliteAuditStore } from './sqlite-audit.store';

/** The audit trail's store, on the process's backend. */
export const AUDIT_STORE = storeProvider(AuditStore, {
  sqlite: (sqlite) => new SqliteAuditStore(sqlite),
  redis: (redis) => new RedisAuditStore(redis),
});
