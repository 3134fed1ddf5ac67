import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { InvocationModule } from '../invocation/invocation.module';
import { LimitsModule } from '../limits/limits.module';
import { McpController, MCP_PATH } from './mcp.controller';
import { McpOriginMiddleware } from './mcp-origin.middleware';
import { McpServerFactory } from './mcp.server';

/** The MCP server over the tool registry and the ToolInvoker, for any transport (HTTP or stdio). */
@Module({
  imports: [InvocationModule],
  providers: [McpServerFactory],
  exports: [McpServerFactory, InvocationModule],
})
export class McpCoreModule {}

/** `POST /mcp`: MCP over Streamable HTTP. */
@Module({
  imports: [McpCoreModule, LimitsModule],
  controllers: [McpController],
  providers: [McpOriginMiddleware],
})
export class McpModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(McpOriginMiddleware).forRoutes(MCP_PATH);
  }
}
