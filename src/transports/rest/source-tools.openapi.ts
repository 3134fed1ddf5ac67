import { Injectable } from '@nestjs/common';
import { convertSync } from '@openapi-contrib/json-schema-to-openapi-schema';
import type { OperationObject, PathItemObject, SchemaObject } from '@nestjs/swagger';
import { isPlainObject } from '../../kernel/common/plain-object';
import { errorResponses } from '../../kernel/openapi/api-errors';
import { LiveOperations } from '../../kernel/openapi/live-operations';
import { RegisteredTool, ToolRegistry } from '../../tools/index';

/** What an MCP source's tool answers over REST: the upstream's result (docs/sources.md). */
const MCP_RESULT: SchemaObject = {
  type: 'object',
  properties: {
    content: { type: 'array', items: { type: 'object' } },
    structuredContent: { type: 'object' },
    isError: { type: 'boolean' },
  },
  required: ['content', 'isError'],
};

/** A schema this document cannot hold as the upstream wrote it, described instead. */
const OPAQUE: SchemaObject = {
  type: 'object',
  description: "The upstream's own JSON Schema: `GET /api/v1/services` lists it.",
};

/** Whether `value` holds a `$ref` anywhere: the upstream's refs do not resolve in this document. */
function refers(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(refers);
  if (!isPlainObject(value)) return false;
  return Object.entries(value).some(([key, inner]) => key === '$ref' || refers(inner));
}

/**
 * The upstream's JSON Schema as an OpenAPI 3.0 schema object (the maintained converter: `const`,
 * type lists, `$schema` and the like), or a description of it where it refers to definitions of its
 * own or cannot be converted.
 */
function openApiSchema(schema: unknown): SchemaObject {
  if (!isPlainObject(schema) || refers(schema)) return OPAQUE;
  try {
    return convertSync(structuredClone(schema));
  } catch {
    return OPAQUE;
  }
}

function operationOf(tool: RegisteredTool): OperationObject {
  const { name, source, upstreamName, runtime } = tool;
  const credits = `${runtime.cost} credit${runtime.cost === 1 ? '' : 's'}`;
  const answer = tool.answersMcpResult ? MCP_RESULT : openApiSchema(tool.outputSchema ?? {});
  return {
    operationId: name,
    summary: (tool.title ?? tool.description.split('\n')[0] ?? name).slice(0, 200) || name,
    description: [
      `\`${upstreamName}\` of the source \`${source}\` (docs/sources.md); its input is checked against the upstream's own schema.`,
      `Needs \`services:execute\`, \`services:execute:${name}\` or \`services:execute:@${source}\`.`,
      `Costs ${credits} of the daily (and monthly) limit, unless the caller's plan prices it otherwise.`,
      `Answers within ${runtime.timeoutMs} ms or 504.`,
    ].join(' '),
    tags: ['tools'],
    security: [{ bearer: [] }],
    'x-required-scopes': [
      'services:execute',
      `services:execute:${name}`,
      `services:execute:@${source}`,
    ],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: openApiSchema(tool.inputSchema) } },
    },
    responses: {
      '200': {
        description: tool.answersMcpResult
          ? "The upstream's result (`isError` true for the tool's own failure)."
          : "The upstream's JSON answer.",
        content: { 'application/json': { schema: answer } },
      },
      ...errorResponses([400, 401, 402, 403, 429, 502, 503, 504], {
        502: {
          description: `The upstream answered an error or more than SOURCE_MAX_RESULT_BYTES.`,
          example: { detail: `Source ${source} answered 500: Internal Server Error` },
        },
        503: {
          description:
            'The source is unavailable (not charged; `Retry-After` says when to try again), or the store cannot be reached.',
          example: { detail: `Source ${source} is unavailable. Retry after 2 seconds.` },
        },
      }),
    },
  } as OperationObject;
}

/**
 * The REST operations of the tools sources bring (`POST /api/v1/services/<name>`): they come and go
 * while the service runs, so the document served holds them as the registry has them then
 * (src/kernel/openapi/openapi.ts, LiveOperations), each with the upstream's schemas.
 */
@Injectable()
export class SourceToolOperations extends LiveOperations {
  constructor(private readonly registry: ToolRegistry) {
    super();
  }

  changes(): number {
    return this.registry.changes();
  }

  paths(): Record<string, PathItemObject> {
    const paths: Record<string, PathItemObject> = {};
    const tools = this.registry.list().filter((tool) => tool.source !== undefined);
    for (const tool of tools.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      paths[tool.path] = { post: operationOf(tool) };
    }
    return paths;
  }
}
