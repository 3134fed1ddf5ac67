import { Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { BearerErrorCodes, CurrentKey, Scopes } from '../auth/auth.decorators';
import type { ApiRequest, AuthenticatedKey } from '../auth/authenticated-key';
import { HttpExchange } from '../http/http-exchange';
import { isPlainObject } from '../validation/validation.pipe';
import { CountsOwnRate } from '../invocation/invocation.decorators';
import { requestLogFields } from '../common/request-log';
import { KeyRateLimiter } from '../limits/key-rate-limiter';
import { TOOL_SCOPE } from '../tools/tool.decorator';
import { McpServerFactory } from './mcp.server';

export const MCP_PATH = 'mcp';

/** The JSON-RPC requests of a POST (messages with an `id`); notifications and junk count nothing. */
function requestCount(body: unknown): number {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.filter((message) => isPlainObject(message) && message.id !== undefined).length;
}

/**
 * `POST /mcp`: MCP over Streamable HTTP, stateless, with JSON responses. Every request is
 * authenticated by the global guards and needs `services:execute`; a fresh server and transport
 * answer it and are dropped. Every JSON-RPC request in the POST counts once against the key's rate
 * limit, all or nothing (here, not by the per-route throttle: a batch of 100 is 100 requests);
 * a tools/call then counts against the quota in the ToolInvoker, not the rate limit again. GET
 * and DELETE have no route: the exception filter answers them 405 with `Allow: POST`.
 */
@ApiExcludeController()
@Controller(MCP_PATH)
export class McpController {
  constructor(
    private readonly servers: McpServerFactory,
    private readonly rateLimiter: KeyRateLimiter,
    private readonly exchange: HttpExchange,
  ) {}

  @Post()
  @Scopes([TOOL_SCOPE])
  @BearerErrorCodes()
  @CountsOwnRate()
  async handle(
    @CurrentKey() key: AuthenticatedKey,
    @Req() req: ApiRequest,
    @Res() reply: object,
  ): Promise<void> {
    const requests = requestCount(req.body);
    if (requests > 0) {
      const headers = await this.rateLimiter.consumeMany(key, requests);
      for (const [name, value] of Object.entries(headers)) {
        this.exchange.setHeader(reply, name, value);
      }
    }
    const server = this.servers.create(
      {
        transport: 'mcp-http',
        authorization: [],
        client: req.ip ?? 'unknown',
        requestId: req.id,
        rateCounted: true,
        key,
      },
      () => requestLogFields(this.exchange.nodeRequest(req), key),
    );
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const { req: nodeReq, res } = this.exchange.takeOver(req, reply);
    res.on('close', () => {
      server.close().catch(() => undefined);
    });
    await server.connect(transport);
    // The body is already parsed (and size-checked) by the app's JSON parser; no body reads as null,
    // which the transport answers as a JSON-RPC parse error.
    await transport.handleRequest(nodeReq, res, req.body ?? null);
  }
}
