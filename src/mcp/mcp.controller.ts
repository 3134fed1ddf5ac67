import { Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { BearerErrorCodes, CurrentKey, Scopes } from '../auth/auth.decorators';
import type { ApiRequest, AuthenticatedKey } from '../auth/authenticated-key';
import { HttpExchange } from '../http/http-exchange';
import { CountsOwnRate } from '../invocation/invocation.decorators';
import { requestLogFields } from '../common/request-log';
import { Accounting } from '../limits/accounting';
import { TOOL_SCOPE } from '../tools/tool.decorator';
import {
  duplicateRequestId,
  MessageRefusal,
  messagesOf,
  oversizedMeta,
  refusalBody,
} from './mcp-messages';
import { McpServerFactory } from './mcp.server';

export const MCP_PATH = 'mcp';

/**
 * `POST /mcp`: MCP over Streamable HTTP, stateless, with JSON responses. Every request is
 * authenticated by the global guards and needs `services:execute`; a fresh server and transport
 * answer it and are dropped. Every JSON-RPC message in the POST, notifications included, counts once
 * against the key's rate limit, all or nothing (here, not by the per-route throttle: a batch of 100
 * is 100 messages); a tools/call then counts against the quota in the ToolInvoker, not the rate
 * limit again. A batch with two requests of one id, and a message with an oversized `_meta`, are
 * refused whole before anything runs (mcp-messages.ts). The tools/calls of a batch run one after
 * the other, each authenticated as a request of its own: a key revoked during a batch stops the
 * calls not yet started. GET and DELETE have no route: the exception filter answers them 405 with
 * `Allow: POST`.
 */
@ApiExcludeController()
@Controller(MCP_PATH)
export class McpController {
  constructor(
    private readonly servers: McpServerFactory,
    private readonly accounting: Accounting,
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
    const messages = messagesOf(req.body);
    const duplicate = duplicateRequestId(messages);
    if (duplicate) return this.refuse(req, reply, duplicate);
    // A POST of no message at all (an empty batch, a bare value) still costs one.
    const headers = await this.accounting.prepay(key, Math.max(1, messages.length));
    for (const [name, value] of Object.entries(headers)) {
      this.exchange.setHeader(reply, name, value);
    }
    const bloated = oversizedMeta(messages);
    if (bloated) return this.refuse(req, reply, bloated);
    const authorization = this.exchange.headerValues(req, 'authorization');
    let calls = 0;
    const server = this.servers.create(
      () => ({
        transport: 'mcp-http',
        authorization,
        client: req.ip ?? 'unknown',
        requestId: req.id,
        ratePaid: true,
        // The POST's own authentication serves its first call; each later one authenticates again.
        caller: calls++ === 0 ? key : undefined,
      }),
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

  /** Answers the POST with a JSON-RPC error, HTTP 400: nothing of it runs. */
  private refuse(req: ApiRequest, reply: object, refusal: MessageRefusal): void {
    const { res } = this.exchange.takeOver(req, reply);
    res.statusCode = 400;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(refusalBody(refusal)));
  }
}
