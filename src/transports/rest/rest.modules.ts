import { Global, Module } from '@nestjs/common';
import { LimitsModule } from '../../limits';
import { AuditController } from './audit.controller';
import { KeysController } from './keys.controller';
import { UsageController } from './usage.controller';
import { SubjectsModule } from '../../subjects';
import { PrincipalsController } from './principals.controller';
import { PrincipalUpkeep, OAuthModule } from '../../oauth';
import { ProtectedResourceController } from './protected-resource.controller';
import { InvocationsController } from './invocations.controller';
import { HealthModule } from '../../health';
import { HealthController } from './health.controller';
import { MetricsModule } from '../../metrics';
import { MetricsController } from './metrics.controller';
import { ToolRunner, ToolsModule } from '../../tools/index';
import { ToolRoutes } from './tool-routes';
import { ToolsController } from './tools.controller';
import { ReportsModule } from '../../reports';
import { AdminUsageController } from './admin-usage.controller';
import { AdminListsController } from './admin-lists.controller';
import { AdminCatalogController } from './admin-catalog.controller';
import { WebhookDeliveryModule, WebhooksModule } from '../../webhooks';
import { RunsModule, RunsUpkeepModule } from '../../runs';
import { RunsController } from './runs.controller';
import { LedgerModule, LedgerUpkeepModule } from '../../ledger';
import { LedgerController } from './ledger.controller';
import { WebhooksController } from './webhooks.controller';
import { SourcesModule } from '../../sources';
import { SourceToolsController } from './source-tools.controller';
import { SourcesController } from './sources.controller';
import { SourceToolOperations } from './source-tools.openapi';
import { LiveOperations } from '../../kernel/openapi/live-operations';

/**
 * The routes about keys (`/api/v1/auth/*`, `/api/v1/usage`). Authentication and scope checks of a
 * request are CallChecks (src/invocations/call-checks.ts).
 */
@Module({
  imports: [SubjectsModule, LimitsModule, RunsModule],
  controllers: [KeysController, UsageController, AuditController],
  exports: [SubjectsModule],
})
export class KeysRoutesModule {}

/**
 * The service as an OAuth protected resource (docs/oauth.md): the RFC 9728 metadata documents,
 * the operators' routes about principals, and the principals' upkeep (merge, idle purge). Off (404s, no challenge parameters) until OAUTH_ISSUERS.
 */
@Module({
  imports: [OAuthModule, LimitsModule, SubjectsModule],
  controllers: [ProtectedResourceController, PrincipalsController],
  providers: [PrincipalUpkeep],
})
export class OAuthRoutesModule {}

/** The REST routes of long-running calls: the server's only (the stdio server has no HTTP). */
@Module({ controllers: [InvocationsController] })
export class InvocationsRoutesModule {}

/** The REST routes of HealthModule, mounted by the server where it mounts HealthModule. */
@Module({ imports: [HealthModule], controllers: [HealthController] })
export class HealthRoutesModule {}

/** The REST routes of MetricsModule, mounted by the server where it mounts MetricsModule. */
@Module({ imports: [MetricsModule], controllers: [MetricsController] })
export class MetricsRoutesModule {}

/**
 * The REST side of every tool call: the ToolRunner the routes @ToolController() makes call.
 * Global, as the tool modules mounted beside it reach it; the server's only (the stdio server and
 * the CLI serve no route, and a tool controller there finds no runner).
 */
@Global()
@Module({
  imports: [ToolsModule],
  providers: [ToolRoutes, { provide: ToolRunner, useExisting: ToolRoutes }],
  exports: [ToolRunner],
})
export class ToolRoutesModule {}

/** The REST routes of ToolsModule, mounted by the server where it mounts ToolsModule. */
@Module({ imports: [ToolsModule], controllers: [ToolsController] })
export class ToolsRoutesModule {}

/** The REST routes of ReportsModule, mounted by the server where it mounts ReportsModule. */
@Module({
  imports: [ReportsModule],
  controllers: [AdminUsageController, AdminListsController, AdminCatalogController],
})
export class ReportsRoutesModule {}

/** The run and ledger routes, and the purges of ended runs and old entries: the server's only. */
@Module({
  imports: [RunsModule, RunsUpkeepModule, LedgerModule, LedgerUpkeepModule],
  controllers: [RunsController, LedgerController],
})
export class RunsRoutesModule {}

/** The webhook routes, and the sender of the outbox: the server's only. */
@Module({
  imports: [WebhooksModule, WebhookDeliveryModule],
  controllers: [WebhooksController],
})
export class WebhooksRoutesModule {}

/**
 * The route of the tools sources bring (`POST /api/v1/services/<name>`), mounted last: every
 * native tool's own route is matched before it; their operations in the OpenAPI document.
 */
@Module({
  imports: [SourcesModule],
  controllers: [SourcesController, SourceToolsController],
  providers: [{ provide: LiveOperations, useClass: SourceToolOperations }],
})
export class SourceToolsRoutesModule {}
