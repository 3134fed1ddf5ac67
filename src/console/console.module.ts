import { Module } from '@nestjs/common';
import { KeysModule } from '../auth/auth.module';
import { LimitsModule } from '../limits/limits.module';
import { OAuthCoreModule } from '../oauth/oauth.module';
import { AdminCatalogController } from './admin-catalog.controller';
import { AdminListsController } from './admin-lists.controller';
import { AdminSearch, SEARCH_BUDGET, SEARCH_BUDGET_TOKEN } from './admin-search';
import { AdminUsageController } from './admin-usage.controller';
import { ConsoleController } from './console.controller';
import { UsageTotals } from './usage-totals';

/**
 * The operator console (docs/console.md): its files at /console, and the read-only routes it
 * needs beyond the rest of the API, under /api/v1/admin (`admin:read`): usage of every key by day
 * and the biggest callers, errors by status, key and audit searches, every caller's long-running
 * calls, the issuers' health, the plans and the tools' details.
 */
@Module({
  imports: [KeysModule, LimitsModule, OAuthCoreModule],
  controllers: [
    AdminUsageController,
    AdminListsController,
    AdminCatalogController,
    ConsoleController,
  ],
  providers: [UsageTotals, AdminSearch, { provide: SEARCH_BUDGET_TOKEN, useValue: SEARCH_BUDGET }],
})
export class ConsoleModule {}
