import { Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Response } from 'express';
import { BearerErrorCodes, CurrentKey, Scopes } from '../auth/auth.decorators';
import type { ApiRequest, AuthenticatedKey } from '../auth/authenticated-key';
import { TOOL_SCOPE } from '../tools/tool.decorator';
import { McpServerFactory } from './mcp.server';

export const MCP_PATH = 'mcp';

/**
 * `POST /mcp`: MCP over Streamable HTTP, stateless, with JSON responses. Every request is
 * authenticated by the global guards and needs `services:execute`; a fresh server and transport
 * answer it and are dropped. Only tools/call is metered (in the ToolInvoker), so the route itself
 * skips the per-key throttle and, not being a @Tool, the quota guard. GET and DELETE have no
 * route: the exception filter answers them 405 with `Allow: POST`.
 */
@ApiExcludeController()
@Controller(MCP_PATH)
export class McpController {
  constructor(private readonly servers: McpServerFactory) {}

  @Post()
  @Scopes([TOOL_SCOPE])
  @BearerErrorCodes()
  @SkipThrottle()
  async handle(
    @CurrentKey() key: AuthenticatedKey,
    @Req() req: ApiRequest,
    @Res() res: Response,
  ): Promise<void> {
    const server = this.servers.create(() => Promise.resolve(key));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => void server.close());
    await server.connect(transport);
    // The body is already parsed (and size-checked) by the app's JSON parser; no body reads as null,
    // which the transport answers as a JSON-RPC parse error.
    await transport.handleRequest(req, res, req.body ?? null);
  }
}
