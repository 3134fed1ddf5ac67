import { ApiProperty, ApiPropertyOptions, getSchemaPath } from '@nestjs/swagger';

/**
 * The bodies of `POST` and `PATCH /api/v1/sources…` as the OpenAPI document shows them. They are
 * checked by CONFIG_FILE's own schema (source-config.ts's SourceFields, source-input.ts), not by
 * these classes: one statement of a source's fields for the file and the API.
 */
export class BearerAuthInput {
  @ApiProperty({ enum: ['bearer'] }) type: 'bearer';
  @ApiProperty({
    description: 'Sent as `Authorization: Bearer <token>`; write-only.',
    writeOnly: true,
    maxLength: 4096,
  })
  token: string;
}

export class HeaderAuthInput {
  @ApiProperty({ enum: ['header'] }) type: 'header';
  @ApiProperty({ pattern: '^[A-Za-z0-9-]{1,64}$', example: 'X-Api-Key' }) name: string;
  @ApiProperty({ description: "The header's value; write-only.", writeOnly: true, maxLength: 4096 })
  value: string;
}

export class OAuthClientCredentialsInput {
  @ApiProperty({ enum: ['oauth_client_credentials'] }) type: 'oauth_client_credentials';
  @ApiProperty({
    description:
      "The upstream's authorization server's token endpoint (https, or loopback http; the source URL rules apply).",
    maxLength: 4096,
    example: 'https://auth.example.com/oauth/token',
  })
  token_url: string;
  @ApiProperty({ maxLength: 4096 }) client_id: string;
  @ApiProperty({
    description: 'Sent as HTTP Basic to the token endpoint only; write-only.',
    writeOnly: true,
    maxLength: 4096,
  })
  client_secret: string;
  @ApiProperty({ required: false, maxLength: 1000, description: 'The scopes asked for.' })
  scope?: string;
  @ApiProperty({
    required: false,
    maxLength: 4096,
    description: "RFC 8707's resource indicator, for an authorization server that asks for one.",
  })
  resource?: string;
}

export class SourceToolSettingsInput {
  @ApiProperty({ required: false, minimum: 0, type: 'integer', description: "This tool's cost." })
  cost?: number;
}

/** One field as both bodies show it: optional; in a change, `null` too (back to its default). */
const field = (options: ApiPropertyOptions, change: boolean): ApiPropertyOptions =>
  ({
    ...options,
    required: false,
    ...(change
      ? {
          // OpenAPI 3.0's `nullable` needs a `type` beside it, which the generator drops beside
          // `oneOf` (auth): there the description says it.
          ...('oneOf' in options ? {} : { nullable: true }),
          description: `${options.description ?? ''} null: back to its default.`.trim(),
        }
      : {}),
  }) as ApiPropertyOptions;

const FIELDS: Record<string, ApiPropertyOptions> = {
  url: {
    type: String,
    maxLength: 4096,
    description: "An MCP server's Streamable HTTP URL (kind mcp). Its query string is write-only.",
    example: 'https://mcp.example.com/mcp',
  },
  document: {
    type: String,
    maxLength: 4096,
    description: "An OpenAPI document's URL (kind openapi); a file path is CONFIG_FILE's only.",
  },
  base_url: {
    type: String,
    maxLength: 4096,
    description: "Where an OpenAPI source's operations are called.",
  },
  prefix: {
    type: String,
    pattern: '^[A-Za-z0-9_.-]{1,32}$',
    description: 'Tools are <prefix>_<upstream name>; the name by default.',
  },
  include: {
    type: [String],
    maxItems: 1000,
    description: 'Upstream tool names or globs served (default ["*"]).',
  },
  exclude: {
    type: [String],
    maxItems: 1000,
    description: 'Upstream tool names or globs left out.',
  },
  cost: { type: 'integer', minimum: 0, description: 'Credits a call (default 1).' },
  timeout_ms: {
    type: 'integer',
    minimum: 100,
    maximum: 3_600_000,
    description: "A call's deadline (default 30,000).",
  },
  max_concurrency: {
    type: 'integer',
    minimum: 1,
    maximum: 1000,
    description: 'Calls at once on an instance (default 16).',
  },
  // `type` keeps the generator from taking the property for a class of its own.
  auth: {
    type: 'object',
    oneOf: [
      { $ref: getSchemaPath(BearerAuthInput) },
      { $ref: getSchemaPath(HeaderAuthInput) },
      { $ref: getSchemaPath(OAuthClientCredentialsInput) },
    ],
    description:
      "The service's own credentials towards the upstream (never the caller's); write-only.",
  } as ApiPropertyOptions,
  refresh_seconds: {
    type: 'integer',
    minimum: 0,
    description: 'The tools listed again this often (default 300; 0: never).',
  },
  tools: {
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(SourceToolSettingsInput) },
    description: 'Settings of single tools, by upstream name.',
  },
};

function decorate(target: object, change: boolean): void {
  for (const [name, options] of Object.entries(FIELDS)) {
    ApiProperty(field(options, change))(target, name);
  }
}

export class CreateSourceInput {
  @ApiProperty({ pattern: '^[a-z][a-z0-9-]{0,31}$', example: 'everything' }) name: string;
  @ApiProperty({ enum: ['mcp', 'openapi'] }) kind: 'mcp' | 'openapi';
}
decorate(CreateSourceInput.prototype, false);

export class UpdateSourceInput {
  @ApiProperty({ enum: ['mcp', 'openapi'], required: false }) kind?: 'mcp' | 'openapi';
}
decorate(UpdateSourceInput.prototype, true);

/** The classes the bodies refer to, for @ApiExtraModels. */
export const SOURCE_INPUT_MODELS = [
  BearerAuthInput,
  HeaderAuthInput,
  OAuthClientCredentialsInput,
  SourceToolSettingsInput,
];
