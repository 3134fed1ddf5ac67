import { Controller, Get, Inject, Optional, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Public } from '../../kernel/auth/auth.decorators';
import {
  RESOURCE_METADATA_PATH,
  resourceUrl,
  type ResourceName,
} from '../../kernel/auth/protected-resource';
import { KNOWN_SCOPES, type Scope, ToolCatalog, toolScope } from '../../kernel/auth/scopes';
import { ApiErrors } from '../../kernel/openapi/api-errors';
import { ApiOAuthOnly } from '../../kernel/openapi/openapi';
import { ApiError } from '../../kernel/errors/api-error';
import type { ReplyControl } from '../../kernel/http/plumbing';
import { Settings, SETTINGS } from '../../kernel/settings/settings';

/** RFC 9728's protected resource metadata, as the service serves it. */
export class ProtectedResourceMetadata {
  @ApiProperty({ example: 'https://tools.example.com/mcp' }) resource: string;
  @ApiProperty({ type: [String], example: ['https://login.example.com/realms/tools'] })
  authorization_servers: string[];
  @ApiProperty({ type: [String], example: ['services:execute'] }) scopes_supported: string[];
  @ApiProperty({ type: [String], example: ['header'] }) bearer_methods_supported: string[];
}

/** The scopes each resource's tokens are asked for: /mcp needs only tool calls (any of them). */
const RESOURCE_SCOPES: Record<ResourceName, readonly Scope[]> = {
  api: KNOWN_SCOPES,
  mcp: ['services:execute'],
};

/**
 * RFC 9728 metadata of the two protected resources (docs/oauth.md): where an OAuth client (an MCP
 * client after a 401) learns which authorization servers issue tokens for the resource and which
 * scopes to ask for. Open to everyone, and to every browser origin (it is public). Without OAuth
 * configured there is no such document: 404, and the OpenAPI document leaves the routes out.
 */
@ApiTags('oauth')
@Public()
@Controller(RESOURCE_METADATA_PATH.slice(1))
export class ProtectedResourceController {
  constructor(
    @Inject(SETTINGS) private readonly settings: Settings,
    @Optional() private readonly catalog?: ToolCatalog,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'getProtectedResourceMetadata',
    summary: "The API's OAuth protected resource metadata (RFC 9728)",
  })
  @ApiOkResponse({ type: ProtectedResourceMetadata })
  @ApiErrors(404)
  @ApiOAuthOnly()
  api(@Res({ passthrough: true }) res: ReplyControl): ProtectedResourceMetadata {
    return this.document('api', res);
  }

  @Get('mcp')
  @ApiOperation({
    operationId: 'getMcpProtectedResourceMetadata',
    summary: "/mcp's OAuth protected resource metadata (RFC 9728)",
  })
  @ApiOkResponse({ type: ProtectedResourceMetadata })
  @ApiErrors(404)
  @ApiOAuthOnly()
  mcp(@Res({ passthrough: true }) res: ReplyControl): ProtectedResourceMetadata {
    return this.document('mcp', res);
  }

  private document(resource: ResourceName, res: ReplyControl): ProtectedResourceMetadata {
    const oauth = this.settings.oauth;
    if (!oauth) throw new ApiError(404, 'Not Found');
    res.header('Cache-Control', 'public, max-age=3600');
    res.header('Access-Control-Allow-Origin', '*');
    return {
      resource: resourceUrl(oauth.publicUrl, resource),
      authorization_servers: oauth.issuers,
      scopes_supported: [
        ...RESOURCE_SCOPES[resource],
        ...[...(this.catalog?.names() ?? [])].sort().map(toolScope),
      ],
      bearer_methods_supported: ['header'],
    };
  }
}
