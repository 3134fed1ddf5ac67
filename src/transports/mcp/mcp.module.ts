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

/** The MCP server over the tool registry and the ToolInvoker, for any transport (HTTP or stdio). */
@Module({
  imports: [InvocationModule],
  providers: [McpTools, McpServerFactory, McpTasks, McpToolList, McpOperations],
  exports: [McpServerFactory, McpTools, McpOperations, InvocationModule],
})
export class McpModule {}

/** `POST /mcp`: MCP over Streamable HTTP (its Origin check is at the front door: mcp-origin.ts). */
@Module({
  imports: [McpModule, LimitsModule, SubjectsModule],
  providers: [McpHttpEntry, McpFastPath, McpCancels],
  controllers: [McpController],
})
export class McpHttpModule {}
