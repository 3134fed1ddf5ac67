import { Module } from '@nestjs/common';
import { SubjectsModule } from '../subjects';
import { LimitsModule } from '../limits';
import { OAuthModule } from '../oauth';
import { CatalogReport } from './catalog.report';
import { ListsReport } from './lists.report';
import { StatusReport } from './status.report';
import { UsageTotals } from './usage-totals';

/**
 * What operators read of the whole service (docs/console.md), for the read-only routes under
 * /api/v1/admin (`admin:read`): usage of every key by day and the biggest callers, errors by
 * status, key and audit searches, every caller's long-running calls, the issuers' health, the
 * plans and the tools' details. It reads the other features, never writes them.
 */
@Module({
  imports: [SubjectsModule, LimitsModule, OAuthModule],
  providers: [UsageTotals, StatusReport, ListsReport, CatalogReport],
  exports: [UsageTotals, StatusReport, ListsReport, CatalogReport],
})
export class ReportsModule {}
