import { Controller, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError } from '../../kernel/errors/api-error';
import { CurrentCaller } from '../../subjects';
import type { ApiRequest, Caller } from '../../subjects';
import { McpCatalogs } from './mcp-catalog';
import { MCP_PATH, McpEndpoint } from './mcp.controller';
import { McpPost } from './mcp.post';

/** `/mcp/sources/<source>`, as the front door matches it (any case, a trailing slash). */
export const MCP_SOURCE_ROUTE = new RegExp(`^/${MCP_PATH}/sources/[^/]+/?$`, 'i');

/**
 * `POST /mcp/sources/<source>`: one source served alone as an MCP server of its own (a virtual
 * server), its tools under the upstream's own names and `serverInfo.name` the source's, so that an
 * agent configured for the upstream needs no renames. Everything else is /mcp's (McpPost): both
 * revisions, the same credentials (keys, run tokens, access tokens for the `/mcp` audience, its
 * challenges), the messages' rate, and each call governed as the registered tool it stands for
 * (its scopes, `services:execute:@<source>` among them, credits, ledger entry, a run's budget).
 * A source this instance does not run is 404.
 */
@ApiExcludeController()
@Controller(`${MCP_PATH}/sources/:source`)
export class McpSourceController {
  constructor(
    private readonly post: McpPost,
    private readonly catalogs: McpCatalogs,
  ) {}

  @McpEndpoint()
  handle(
    @Param('source') source: string,
    @CurrentCaller() key: Caller,
    @Req() req: ApiRequest,
    @Res() reply: object,
  ): Promise<void> {
    const catalog = this.catalogs.ofSource(source);
    if (!catalog) throw new ApiError(404, 'Source not found');
    return this.post.answer(catalog, key, req, reply);
  }
}
