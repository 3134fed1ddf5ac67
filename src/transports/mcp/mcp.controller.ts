import { applyDecorators, Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { BearerErrorCodes, OAuthResource, Scopes } from '../../kernel/auth/auth.decorators';
import { ANY_TOOL_SCOPE } from '../../kernel/auth/scopes';
import { CurrentCaller } from '../../subjects';
import type { ApiRequest, Caller } from '../../subjects';
import { CountsOwnRateLimit } from '../../invocations';
import { McpCatalogs } from './mcp-catalog';
import { McpPost } from './mcp.post';

export const MCP_PATH = 'mcp';

/**
 * What a POST of an MCP endpoint asks (`/mcp`, `/mcp/sources/<source>`): a caller that may call
 * some tool, the bearer challenges and the `/mcp` resource of OAuth, and its messages counted by
 * McpPost itself, not by the route's rate check.
 */
export const McpEndpoint = () =>
  applyDecorators(
    Post(),
    Scopes([ANY_TOOL_SCOPE]),
    BearerErrorCodes(),
    OAuthResource('mcp'),
    CountsOwnRateLimit(),
  );

/**
 * `POST /mcp`: MCP over Streamable HTTP, stateless, both revisions (2026-07-28 and the 2025 ones).
 * Every request is authenticated by the global guard and needs `services:execute`. Every JSON-RPC
 * message of the POST, notifications included, counts once against the key's rate limit, all or
 * nothing, before any runs (LimitsService.countMessages: a batch of 100 is 100 messages); a POST of one
 * tools/call that the fast path answers counts it in the call's own rate check, with its credits
 * (one round trip on Redis besides the key's read, as REST). A batch
 * with two requests of one id, and a message with an oversized `_meta`, are refused whole before
 * anything runs (mcp-messages.ts). The tools/calls of a batch run one after the other, each
 * authenticated as a request of its own: a key revoked during a batch stops the calls not yet
 * started. GET and DELETE have no route: the exception filter answers them 405 with `Allow: POST`.
 * The POST's work is McpPost's, over the whole registry (McpCatalogs.all).
 */
@ApiExcludeController()
@Controller(MCP_PATH)
export class McpController {
  constructor(
    private readonly post: McpPost,
    private readonly catalogs: McpCatalogs,
  ) {}

  @McpEndpoint()
  handle(
    @CurrentCaller() key: Caller,
    @Req() req: ApiRequest,
    @Res() reply: object,
  ): Promise<void> {
    return this.post.answer(this.catalogs.all, key, req, reply);
  }
}
