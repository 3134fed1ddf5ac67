import { Inject, Injectable, Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import * as z from 'zod/v4';
import {
  CallToolRequestSchema,
  CallToolResult,
  ErrorCode,
  InitializeRequest,
  InitializeRequestSchema,
  InitializeResult,
  ListToolsRequestSchema,
  McpError,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { ValidationFailed } from '../errors/api-error';
import { errorAnswer, STATUS_TEXT } from '../errors/all-exceptions.filter';
import { echoedName } from '../validation/issues';
import { isPlainObject } from '../validation/validation.pipe';
import { Settings, SETTINGS } from '../settings/settings';
import { RegisteredTool, ToolRegistry } from '../tools/tool.registry';
import { ToolCaller, ToolInvoker } from '../invocation/tool.invoker';
import { MCP_IDEMPOTENCY_META } from '../invocation/idempotency';

/**
 * A JSON-RPC error whose message is exactly ours: McpError prefixes `MCP error <code>: ` to its
 * message, which the client would then prefix again.
 */
class ProtocolError extends McpError {
  constructor(code: number, message: string, data?: unknown) {
    super(code, message, data);
    this.message = message;
  }
}

function unknownTool(name: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `${STATUS_TEXT[404]}: no tool named '${echoedName(name)}'`,
    { detail: STATUS_TEXT[404] },
  );
}

/** The REST answer's detail as text: a sentence as it is, a 400 list as its JSON. */
function textOf(detail: unknown): string {
  return typeof detail === 'string' ? detail : JSON.stringify(detail);
}

function success(body: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    ...(isPlainObject(body) ? { structuredContent: body } : {}),
  };
}

/** A tool call the service refused or that failed, as MCP's `isError` result with REST's detail. */
function failure(detail: unknown, retryAfter?: string | number): CallToolResult {
  let text = textOf(detail);
  if (retryAfter !== undefined && !/retry/i.test(text))
    text += ` Retry after ${retryAfter} seconds.`;
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * Builds MCP servers (the SDK's low-level `Server`) whose tools are the registry's: `tools/list`
 * shows each tool's description and JSON Schemas, `tools/call` runs it through the ToolInvoker.
 * One server per HTTP request (stateless), or one for a stdio session.
 */
@Injectable()
export class McpServerFactory {
  private readonly logger = new Logger('Mcp');

  constructor(
    private readonly registry: ToolRegistry,
    private readonly invoker: ToolInvoker,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /**
   * A server whose tools/call runs as `caller` (or as the caller it names for each call). Over
   * HTTP the first call's key is the request's (authenticated by the pipeline), later ones are
   * authenticated again, and each JSON-RPC message was counted against its rate limit;
   * over stdio the key is authenticated again on every call (a revoked key stops working at once)
   * and each call counts against the rate limit in the pipeline. `logFields` tie its error lines
   * to the HTTP request it serves, as REST's are (requestLogFields), made only for a line written;
   * none over stdio.
   */
  create(caller: ToolCaller | (() => ToolCaller), logFields: () => object = () => ({})): Server {
    const callerOfCall = typeof caller === 'function' ? caller : () => caller;
    // The tools/calls a server is sent run one after the other, in the order they came: a batch's
    // later calls see what its earlier ones did (a key revoked, a setting changed).
    let previous: Promise<unknown> = Promise.resolve();
    const server = new Server(
      { name: 'tool-invocation-service', version: this.settings.version },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsWithAnyParams, (request) => {
      if (!ListToolsRequestSchema.safeParse(request).success) {
        throw new ProtocolError(
          ErrorCode.InvalidParams,
          'Invalid tools/list request: a cursor is a string',
        );
      }
      return { tools: this.registry.list().map(describeTool) };
    });
    server.setRequestHandler(CallToolWithAnyArguments, ({ params }) => {
      // The SDK has checked the request against its own tools/call schema by now (-32602 if not).
      const {
        name,
        arguments: args,
        _meta,
      } = params as {
        name: unknown;
        arguments?: unknown;
        _meta?: Record<string, unknown>;
      };
      const call = previous.then(() =>
        this.callTool(callerOfCall(), logFields, String(name), args, _meta?.[MCP_IDEMPOTENCY_META]),
      );
      previous = call.catch(() => undefined);
      return call;
    });
    answerBadInitializeAsInvalidParams(server);
    return server;
  }

  private async callTool(
    caller: ToolCaller,
    logFields: () => object,
    name: string,
    args: unknown,
    idempotencyKey: unknown,
  ) {
    const tool = this.registry.get(name);
    if (!tool) throw unknownTool(name);
    try {
      return success(await this.invoker.invoke(caller, tool, args, idempotencyKey));
    } catch (error) {
      // Arguments that fail validation are a result the model can read and correct (MCP spec).
      if (error instanceof ValidationFailed) return failure(error.issues);
      return this.refusal(logFields, name, error);
    }
  }

  private refusal(logFields: () => object, tool: string, error: unknown): CallToolResult {
    const answer = errorAnswer(error, this.logger, `MCP tool ${tool}`, logFields);
    return failure(answer.detail, answer.headers['Retry-After']);
  }
}

/**
 * tools/call with its params left as sent. The SDK's Server checks a tools/call itself and answers
 * a malformed one (no params, no name, arguments not an object) with -32602 (invalid params);
 * parsed with a stricter schema first, the same request would be -32603 (internal error) with
 * zod's issue list as its message. Arguments that are an object reach our validation untouched,
 * so it answers like REST (a `__proto__` key is the extra field it is, not a prototype).
 */
const CallToolWithAnyArguments = CallToolRequestSchema.extend({ params: z.unknown().optional() });

/**
 * tools/list with its params left as sent: the SDK answers params its schema refuses (a cursor that
 * is not a string) with -32603 and zod's issue list, where a client's malformed request is -32602.
 */
const ListToolsWithAnyParams = ListToolsRequestSchema.extend({ params: z.unknown().optional() });

/** `initialize` as the SDK reads it, minus the check that makes a malformed one an internal error. */
const AnyInitialize = InitializeRequestSchema.extend({ params: z.unknown().optional() });

interface Initializing {
  _oninitialize?: (request: InitializeRequest) => Promise<InitializeResult>;
}

/**
 * The SDK answers an `initialize` whose params do not match its schema with -32603 and zod's issue
 * list; a client's malformed request is -32602 (invalid params). Same handler, stricter answer.
 */
function answerBadInitializeAsInvalidParams(server: Server): void {
  const initialize = (server as unknown as Initializing)._oninitialize?.bind(server);
  if (!initialize) return; // another SDK version: keep its own handler
  server.removeRequestHandler('initialize');
  server.setRequestHandler(AnyInitialize, (request) => {
    const parsed = InitializeRequestSchema.safeParse(request);
    if (!parsed.success) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        'Invalid initialize request: params need protocolVersion, capabilities and clientInfo',
      );
    }
    return initialize(parsed.data);
  });
}

/** `word_count` -> `Word count`: a tool's title when it gives none. */
function titleOf(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A tool as tools/list shows it: its title, and every annotation (the spec's defaults filled in). */
function describeTool(tool: RegisteredTool): Tool {
  const title = tool.title ?? titleOf(tool.name);
  const hints = tool.annotations ?? {};
  return {
    name: tool.name,
    title,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    outputSchema: tool.outputSchema as Tool['outputSchema'],
    annotations: {
      title,
      readOnlyHint: hints.readOnlyHint ?? false,
      destructiveHint: hints.destructiveHint ?? true,
      idempotentHint: hints.idempotentHint ?? false,
      openWorldHint: hints.openWorldHint ?? true,
    },
  };
}
