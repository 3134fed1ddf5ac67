import { Module } from '@nestjs/common';
import { InvocationModule } from '../../invocations';
import { SubjectsModule } from '../../subjects';
import { LimitsModule } from '../../limits';
import { McpController } from './mcp.controller';
import { McpHttpEntry } from './mcp.http';
import { McpFastPath } from './mcp.fast-path';
import { McpServerFactory } from './mcp.server';
import { McpTools } from './mcp.tools';
import { McpCancels } from './mcp.cancels';
import { McpTasks } from './mcp.tasks';
import { McpToolList } from './mcp-tool-list';
import { McpOperations } from './mcp-operations';
import { McpCatalogs } from './mcp-catalog';
import { McpPost } from './mcp.post';
import { McpSourceController } from './mcp-source.controller';
import { SourcesModule } from '../../sources';

/** The MCP server over the tool registry and the ToolInvoker, for any transport (HTTP or stdio). */
@Module({
  imports: [InvocationModule, SourcesModule],
  providers: [McpTools, McpServerFactory, McpTasks, McpToolList, McpOperations, McpCatalogs],
  exports: [McpServerFactory, McpTools, McpOperations, McpCatalogs, InvocationModule],
})
export class McpModule {}

/**
 * `POST /mcp` and `POST /mcp/sources/<source>`: MCP over Streamable HTTP (its Origin check is at
 * the front door: mcp-origin.ts).
 */
@Module({
  imports: [McpModule, LimitsModule, SubjectsModule],
  providers: [McpHttpEntry, McpFastPath, McpCancels, McpPost],
  controllers: [McpController, McpSourceController],
})
export class McpHttpModule {}
