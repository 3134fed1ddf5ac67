import { applyDecorators, Controller, HttpCode, Post, Req, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { Reflector } from '@nestjs/core';
import {
  ApiBearerAuth,
  ApiBody,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { actorOfRoute } from '../audit/audit.context';
import { Scopes } from '../auth/auth.decorators';
import { type RequestScope, takeKeepAnswer } from '../common/request-scope';
import type { Scope } from '../auth/scopes';
import { ApiErrors, BODY_ERRORS, KEYED_ERRORS } from '../docs/api-errors';

export const TOOLS_PATH = 'api/v1/services';
/** The scope every tool call needs, over REST and MCP. */
export const TOOL_SCOPE: Scope = 'services:execute';

/** MCP's hints about a tool's behaviour (the MCP specification's ToolAnnotations). */
export interface ToolAnnotations {
  /** Does not change its environment. Default false. */
  readOnlyHint?: boolean;
  /** May destroy or overwrite (when not read-only). Default true. */
  destructiveHint?: boolean;
  /** Calling it twice with the same arguments does nothing more. Default false. */
  idempotentHint?: boolean;
  /** Reaches outside this service. Default true. */
  openWorldHint?: boolean;
}

export interface ToolDefinition {
  /** The tool's name and the last segment of its path: `[a-z][a-z0-9_]*`. */
  name: string;
  /** A human-readable name for MCP clients; by default the name in words (`word_count`: Word count). */
  title?: string;
  description: string;
  /** Hints for MCP clients; what a tool leaves out takes the MCP specification's default. */
  annotations?: ToolAnnotations;
  /** The request DTO: its field decorators validate requests and give the input schema. */
  input: Type<object>;
  /** The response DTO, for the output schema. */
  output: Type<object>;
  /** Error statuses of the tool's own, documented beside those every tool call may get. */
  errors?: number[];
}

/** The definition a @Tool() handler carries, typed: `reflector.get(ToolMetadata, handler)`. */
export const ToolMetadata = Reflector.createDecorator<ToolDefinition>();

/**
 * Marks a controller method as a tool: `POST /api/v1/services/<name>`, answered 200, needing
 * `services:execute`, metered by the daily quota, listed by discovery and documented in OpenAPI.
 * The method takes the validated input DTO (`@Body()`) and, when it must know who calls (a change
 * it audits), the caller (`@Actor()`) second; it returns the output. MCP calls it the same way.
 */
export function Tool(definition: ToolDefinition): MethodDecorator {
  if (!/^[a-z][a-z0-9_]*$/.test(definition.name)) {
    throw new Error(`Tool name '${definition.name}' must match [a-z][a-z0-9_]*`);
  }
  return applyDecorators(
    TakesInputAndActor(definition.name),
    // Before the others: the decorators after it put their metadata on the wrapper.
    KeepsIdempotentAnswer(),
    ToolMetadata(definition),
    Post(definition.name),
    HttpCode(200),
    Scopes([TOOL_SCOPE]),
    ApiOperation({ operationId: definition.name, summary: definition.description }),
    ApiBody({ type: definition.input }),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      // No `example`: Swagger UI's Try it out fills a parameter in with its example, and every try
      // after the first would then be a replay (or a 422 once the body is edited).
      description:
        'Makes a retry safe: the first answer (tool ran) is kept 24 hours and replayed to a repeat with the same body, with `Idempotent-Replayed: true`, not counted against the quota. 1 to 255 visible ASCII characters, for example `order-4711-greet`: a new value for each new call.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    }),
    ApiOkResponse({
      type: definition.output,
      description: 'The tool ran (or, with `Idempotent-Replayed: true`, its kept answer).',
      headers: {
        'Idempotent-Replayed': {
          description: '`true` on a replayed answer.',
          schema: { type: 'string', enum: ['true'] },
        },
      },
    }),
    ApiErrors(...BODY_ERRORS, ...KEYED_ERRORS, 402, 403, 409, 422, ...(definition.errors ?? [])),
  );
}

/** A route parameter as Nest's parameter decorators record it (`@Body()`, `@Actor()`, ...). */
interface RouteParameter {
  index: number;
  data?: unknown;
  factory?: unknown;
}

/**
 * MCP calls a tool's handler as `(input, actor)` and REST fills its parameters from their
 * decorators, so they must be `@Body()` (the whole body, which REST's validation checks) first and,
 * for a tool that audits, `@Actor()` second. Any other shape would skip REST's validation or get
 * other arguments over MCP: it stops the start instead, naming the tool.
 */
function TakesInputAndActor(name: string): MethodDecorator {
  return (target, key) => {
    // Parameter decorators ran before this one; Nest keys what they declared `<type>:<index>`.
    const declared = (Reflect.getMetadata(ROUTE_ARGS_METADATA, target.constructor, key) ??
      {}) as Record<string, RouteParameter>;
    const params = Object.entries(declared);
    const isInput = ([type, param]: [string, RouteParameter]) =>
      type === `${RouteParamtypes.BODY}:0` && param.data === undefined;
    const isActor = ([, param]: [string, RouteParameter]) =>
      param.index === 1 && param.factory === actorOfRoute;
    if (!params.some(isInput) || !params.every((p) => isInput(p) || isActor(p))) {
      throw new Error(
        `Tool '${name}': its handler takes @Body() input first and, if it audits, @Actor() actor second; MCP calls it with those two`,
      );
    }
  };
}

/**
 * Wraps a tool's handler so that, over REST, an idempotent call's answer (the handler's result,
 * as the client will read it) is kept before it is sent. Errors are kept by the exception filter,
 * which sees those of validation too. A call without an Idempotency-Key pays one property read.
 *
 * The request reaches the wrapper as a parameter of its own after the handler's two (input, actor:
 * TakesInputAndActor allows no other), where MCP's call, with those two and no request, stops.
 */
function KeepsIdempotentAnswer(): MethodDecorator {
  const requestAt = 2;
  return (target, key, descriptor: PropertyDescriptor) => {
    const handler = descriptor.value as (...args: unknown[]) => unknown;
    Req()(target, key, requestAt);
    const wrapped = function (this: unknown, ...args: unknown[]): unknown {
      const req = args[requestAt] as RequestScope | undefined;
      // Without an Idempotency-Key there is nothing to keep: the handler's answer, as it comes.
      if (!req?.keepAnswer) return handler.apply(this, args);
      return keptAnswer(handler.apply(this, args), req);
    };
    // Decorators applied below @Tool() put their metadata on the handler: carry it over.
    for (const key of Reflect.getMetadataKeys(handler) as unknown[]) {
      Reflect.defineMetadata(key, Reflect.getMetadata(key, handler), wrapped);
    }
    Object.defineProperty(wrapped, 'name', { value: handler.name });
    descriptor.value = wrapped;
  };
}

/** The handler's result, once its answer (as the client will read it) is kept for the request. */
async function keptAnswer(pending: unknown, req: RequestScope): Promise<unknown> {
  const result = await pending;
  const keep = takeKeepAnswer(req);
  if (keep) await keep(200, JSON.parse(JSON.stringify(result ?? null)));
  return result;
}

/** The class decorator of a tool controller: the shared path prefix, tag and bearer auth. */
export function ToolController(): ClassDecorator {
  return applyDecorators(Controller(TOOLS_PATH), ApiTags('tools'), ApiBearerAuth());
}
