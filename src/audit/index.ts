/**
 * The audit feature's public entry: what the other features, the transports, the tools and
 * the processes may use of it. Nothing else of this folder is imported from outside it.
 */
export { ApiAuditPage, auditPage } from './audit-page';
export { AuditSearch } from './audit-search';
export type { AuditFilter } from './audit-search';
export { AUDIT_LOG_FIELD, Actor, CLI_ACTOR, SYSTEM_ACTOR, callerActor } from './audit.context';
export type { AuditActor } from './audit.context';
export { AuditEntryView, AuditPage } from './audit.dto';
export { AuditModule } from './audit.module';
export { AUDIT_ACTIONS, AuditService } from './audit.service';
export { AuditStore } from './audit.store';
export type { AuditEntry } from './audit.store';
