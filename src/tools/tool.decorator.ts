import {
  applyDecorators,
  Controller,
  HttpCode,
  Inject,
  Optional,
  Post,
  Req,
  Res,
  Type,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiBody,
  ApiExtension,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Scope } from '../kernel/auth/scopes';
import { ApiErrors, BODY_ERRORS, KEYED_ERRORS } from '../kernel/openapi/api-errors';
import { ToolRunner } from './tool-runner';

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
  /**
   * Its deadline, in ms: a call still running then is answered 504 and its signal aborted. A
   * synchronous call's deadline covers its wait in the queue too. Default 30000; CONFIG_FILE's
   * `tools.<name>.timeout_ms` overrides it.
   */
  timeoutMs?: number;
  /** Calls running at once on one instance. Default 64; `tools.<name>.concurrency`. */
  concurrency?: number;
  /** Calls waiting for a slot on one instance; past it 503. Default 64; `tools.<name>.queue`. */
  queue?: number;
  /** What a call costs, in credits of the caller's daily (and monthly) limit. Default 1. */
  cost?: number;
  /**
   * Long-running calls: `allowed` (the default) runs a call in the background when the client
   * asks (`Prefer: respond-async`; an MCP task), `never` always answers in the request, `required`
   * always runs it in the background (202 even without asking).
   */
  async?: ToolAsyncMode;
  /**
   * `invocation.finished` webhook events of its long-running calls carry their result. Off by
   * default: a result may hold what its caller keeps private (docs/webhooks.md).
   */
  webhookResult?: boolean;
}

export type ToolAsyncMode = 'allowed' | 'never' | 'required';

/** What a tool that declares none gets (the contract's defaults). */
export const TOOL_DEFAULTS = {
  timeoutMs: 30_000,
  concurrency: 64,
  queue: 64,
  cost: 1,
  async: 'allowed',
} as const satisfies Required<
  Pick<ToolDefinition, 'timeoutMs' | 'concurrency' | 'queue' | 'cost' | 'async'>
>;

/** The definition a @Tool() handler carries, typed: `reflector.get(ToolMetadata, handler)`. */
export const ToolMetadata = Reflector.createDecorator<ToolDefinition>();

/** The route @ToolController() made for a tool: the tool's name. */
export const ToolRoute = Reflector.createDecorator<string>();

/**
 * Marks a method of a @ToolController() class as a tool: it takes the validated input (an instance
 * of the input DTO) and a ToolContext, and returns the output. It is called by the runtime, never
 * by the router: over REST (`POST /api/v1/services/<name>`, made by @ToolController()) and MCP
 * alike, after authentication, scope, rate limit, idempotency, quota and validation. Needing
 * `services:execute`, metered by the daily quota, listed by discovery and documented in OpenAPI.
 */
export function Tool(definition: ToolDefinition): MethodDecorator {
  if (!/^[a-z][a-z0-9_]*$/.test(definition.name)) {
    throw new Error(`Tool name '${definition.name}' must match [a-z][a-z0-9_]*`);
  }
  for (const field of ['timeoutMs', 'concurrency', 'cost'] as const) {
    const value = definition[field];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1)) {
      throw new Error(`Tool '${definition.name}': ${field} must be a whole number >= 1`);
    }
  }
  if (
    definition.queue !== undefined &&
    !(Number.isSafeInteger(definition.queue) && definition.queue >= 0)
  ) {
    throw new Error(`Tool '${definition.name}': queue must be a whole number >= 0`);
  }
  if (
    definition.async !== undefined &&
    !['allowed', 'never', 'required'].includes(definition.async)
  ) {
    throw new Error(`Tool '${definition.name}': async must be 'allowed', 'never' or 'required'`);
  }
  return ToolMetadata(definition);
}

/** Where a tool controller keeps the runner its routes call (injected, optional: the CLI has none). */
const RUNNER = Symbol('toolRunner');

type RouteHost = Record<typeof RUNNER, ToolRunner | undefined>;

/**
 * The class decorator of a tool controller: the shared path prefix, tag and bearer auth, and for
 * each @Tool() method a route of its own, `POST /api/v1/services/<name>`, answered 200, which
 * hands the request to the ToolRunner. The route, not the tool, is what the router calls: so REST
 * and MCP run a tool through one runtime (the pipeline, validation, the tool, its kept answer),
 * and a tool's handler takes its input and context however the call came.
 */
export function ToolController(): ClassDecorator {
  return (target) => {
    const prototype = target.prototype as object;
    Optional()(prototype, RUNNER);
    Inject(ToolRunner)(prototype, RUNNER);
    for (const definition of toolDefinitions(prototype)) addRoute(prototype, definition);
    applyDecorators(Controller(TOOLS_PATH), ApiTags('tools'), ApiBearerAuth())(target);
  };
}

/** Where @Module() keeps its controllers (`MODULE_METADATA.CONTROLLERS`, not a public export). */
const MODULE_CONTROLLERS = 'controllers';

/** The @Tool() definitions of a class's own methods. */
function toolDefinitions(prototype: object): ToolDefinition[] {
  return Object.getOwnPropertyNames(prototype).flatMap((method) => {
    const handler = (prototype as Record<string, unknown>)[method];
    const definition =
      typeof handler === 'function'
        ? (Reflect.getMetadata(ToolMetadata.KEY, handler) as ToolDefinition | undefined)
        : undefined;
    return definition ? [definition] : [];
  });
}

/**
 * The names of the tools that modules' controllers declare, read from their decorators without
 * starting an application: for texts written before one exists (the CLI's `--help`).
 */
export function declaredToolNames(modules: readonly Type[]): string[] {
  return modules.flatMap((module) =>
    ((Reflect.getMetadata(MODULE_CONTROLLERS, module) ?? []) as Type[]).flatMap((controller) =>
      toolDefinitions(controller.prototype as object).map(({ name }) => name),
    ),
  );
}

/** `Prefer: respond-async` of a tool that may run in the background. */
const preferHeader = () =>
  ApiHeader({
    name: 'Prefer',
    required: false,
    description:
      '`respond-async` runs the call in the background: 202 with `Location` (`/api/v1/invocations/<id>`); `respond-async, wait=N` waits up to N seconds (60 at most) for it first.',
    schema: { type: 'string' },
  });

/** The 202 of a call running in the background. */
const acceptedResponse = () =>
  ApiAcceptedResponse({
    schema: { $ref: getSchemaPath('InvocationView') },
    description:
      'Running in the background (`Prefer: respond-async`, or a tool that always does): its view; follow `Location`.',
    headers: {
      Location: {
        description: 'Where the call is followed: `/api/v1/invocations/<id>`.',
        schema: { type: 'string' },
      },
    },
  });

function addRoute(prototype: object, definition: ToolDefinition): void {
  const key = `${definition.name} (route)`;
  const name = definition.name;
  // A tool that never runs in the background documents no 202 and no Prefer: a client generated
  // from the document then reads its one success without narrowing.
  const background = (definition.async ?? TOOL_DEFAULTS.async) !== 'never';
  const route = function (this: RouteHost, req: object, res: object): Promise<unknown> {
    const runner = this[RUNNER];
    if (!runner) throw new Error(`Tool '${name}': no ToolRunner is provided in this application`);
    return runner.serve(name, req, res);
  };
  Object.defineProperty(route, 'name', { value: name });
  const descriptor: PropertyDescriptor = { value: route, writable: true, configurable: true };
  Object.defineProperty(prototype, key, descriptor);
  Req()(prototype, key, 0);
  Res({ passthrough: true })(prototype, key, 1);
  applyDecorators(
    ToolRoute(name),
    Post(name),
    HttpCode(200),
    ApiOperation({
      operationId: name,
      summary: definition.description,
      description: [
        `Needs \`services:execute\` or \`services:execute:${name}\`.`,
        `Costs ${definition.cost ?? TOOL_DEFAULTS.cost} credit${(definition.cost ?? TOOL_DEFAULTS.cost) === 1 ? '' : 's'} of the daily (and monthly) limit, unless the caller's plan prices it otherwise (\`X-Quota-Cost\` says; discovery lists each caller's price).`,
        `Answers within ${definition.timeoutMs ?? TOOL_DEFAULTS.timeoutMs} ms or 504` +
          (background
            ? '; with `Prefer: respond-async`, 202 and `Location` of the long-running call.'
            : ', always in the request (`Prefer: respond-async` is answered the same way).'),
      ].join(' '),
    }),
    ApiExtension('x-required-scopes', ['services:execute', `services:execute:${name}`]),
    ...(background ? [preferHeader()] : []),
    ApiBody({ type: definition.input }),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
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
    ...(background ? [acceptedResponse()] : []),
    ApiErrors(
      ...BODY_ERRORS,
      ...KEYED_ERRORS,
      402,
      403,
      409,
      422,
      503,
      504,
      ...(definition.errors ?? []),
    ),
  )(prototype, key, descriptor);
}
