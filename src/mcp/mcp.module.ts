import { Module } from '@nestjs/common';
import { InvocationModule } from '../invocation/invocation.module';
import { LimitsModule } from '../limits/limits.module';
import { McpController } from './mcp.controller';
import { McpServerFactory } from './mcp.server';

/** The MCP server over the tool registry and the ToolInvoker, for any transport (HTTP or stdio). */
@Module({
  imports: [InvocationModule],
  providers: [McpServerFactory],
  exports: [McpServerFactory, InvocationModule],
})
export class McpCoreModule {}

/** `POST /mcp`: MCP over Streamable HTTP (its Origin check is at the front door: mcp-origin.ts). */
@Module({
  imports: [McpCoreModule, LimitsModule],
  controllers: [McpController],
})
export class McpModule {}
