import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits';
import { ToolsModule } from '../tools/index';
import { WebhooksModule } from '../webhooks';
import { ApiSourcesService } from './api-sources.service';
import { SourceEvents } from './source-events';
import { SourceReadyCheck } from './source-check';
import { SourceMetrics } from './source-metrics';
import { SOURCE_STORES } from './source.stores';
import { SourcesService } from './sources.service';
import { SourceExtras } from './source-extras';

/**
 * Upstream sources (docs/sources.md): MCP servers and OpenAPI documents whose tools are served as
 * the service's own, governed alike; CONFIG_FILE's and those made through the API (kept in the
 * store). Mounted by the server and the stdio MCP server after the tool modules.
 */
@Module({
  // LimitsModule: the clock.
  imports: [ToolsModule, WebhooksModule, LimitsModule],
  providers: [
    ...SOURCE_STORES,
    SourcesService,
    SourceExtras,
    ApiSourcesService,
    SourceEvents,
    SourceReadyCheck,
    SourceMetrics,
  ],
  exports: [SourcesService, SourceExtras, ApiSourcesService],
})
export class SourcesModule {}
