import { Global, Module } from '@nestjs/common';
import { LimitsModule } from '../limits';
import { AuditService } from './audit.service';
import { AUDIT_STORES } from './audit.stores';
import { AuditSearch } from './audit-search';
import { SEARCH_BUDGET, SEARCH_BUDGET_TOKEN } from '../kernel/common/bounded-search';

/** The audit trail, for every module that changes keys or settings (global: one trail). */
@Global()
@Module({
  imports: [LimitsModule],
  providers: [
    ...AUDIT_STORES,
    AuditService,
    AuditSearch,
    { provide: SEARCH_BUDGET_TOKEN, useValue: SEARCH_BUDGET },
  ],
  exports: [AuditService, AuditSearch],
})
export class AuditModule {}
