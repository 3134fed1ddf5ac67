import { Injectable, Logger } from '@nestjs/common';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { errorAnswer, STATUS_TEXT } from '../errors/all-exceptions.filter';
import { ValidationFailed } from '../errors/api-error';
import { MCP_IDEMPOTENCY_META } from '../invocation/idempotency';
import { CallControl } from '../invocation/runtime/call-control';
import { newInvocationId } from '../invocation/runtime/long-calls';
import { Accepted, CallIo, ToolCaller, ToolInvoker } from '../invocation/tool.invoker';
import { RegisteredTool, ToolRegistry } from '../tools/tool.registry';
import { echoedName } from '../validation/issues';
import { failure, success } from './mcp-results';
import { McpTasks, tasksRequired } from './mcp.tasks';

/** How long a client may keep a `tools/list` result (2026-07-28's cache hint; `private`). */
export const TOOLS_LIST_TTL_MS = 60_000;

/** A tools/call's params as the SDK has checked them: a name, and arguments that are an object. */
export interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** Where a tool call's error lines point: the HTTP request's fields, made only for a line written. */
export type LogFields = () => object;

/** How a transport runs an MCP tool call: its controls and progress, the client's era and tasks. */
export interface McpCallIo extends CallIo {
  /** The 2026-07-28 era (a per-request envelope), else 2025. */
  modern: boolean;
  /** The client declared the tasks extension on this request. */
  tasks: boolean;
}

function unknownTool(name: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `${STATUS_TEXT[404]}: no tool named '${echoedName(name)}'`,
    { detail: STATUS_TEXT[404] },
  );
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
    outputSchema: tool.outputSchema,
    annotations: {
      title,
      readOnlyHint: hints.readOnlyHint ?? false,
      destructiveHint: hints.destructiveHint ?? true,
      idempotentHint: hints.idempotentHint ?? false,
      openWorldHint: hints.openWorldHint ?? true,
    },
  };
}

/**
 * The tools as MCP serves them, for every way MCP is answered (the SDK's entry over HTTP and stdio,
 * and the lean path in front of it): `tools/list` from the registry, sorted by name and built once;
 * `tools/call` through the same runtime as REST (ToolInvoker), its refusals and failures turned
 * into `isError` results with REST's detail text, an unknown tool a -32602 error.
 */
@Injectable()
export class McpTools {
  private readonly logger = new Logger('Mcp');
  private listed?: { tools: Tool[] };

  constructor(
    private readonly registry: ToolRegistry,
    private readonly invoker: ToolInvoker,
    private readonly tasks: McpTasks,
  ) {}

  /** Whether the tool always runs in the background (a task for a client of the extension). */
  runsInBackground(name: string): boolean {
    return this.registry.get(name)?.runtime.async === 'required';
  }

  /** The tools/list result's own fields (the same object every time: it never changes). */
  list(): { tools: Tool[] } {
    this.listed ??= {
      tools: this.registry
        .list()
        .map(describeTool)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    };
    return this.listed;
  }

  /**
   * A tools/call as `caller`: its result, or a ProtocolError for an unknown tool. `args` are the
   * arguments as the client sent them, when the transport still has them: the SDK's own parse of
   * the params rebuilds the arguments object, and a `__proto__` key then becomes its prototype
   * instead of the extra field REST refuses.
   */
  async call(
    caller: ToolCaller,
    params: ToolCallParams,
    logFields: LogFields,
    args: unknown = params.arguments,
    io: McpCallIo = { control: new CallControl(), modern: false, tasks: false },
  ): Promise<CallToolResult> {
    const name = params.name;
    const tool = this.registry.get(name);
    if (!tool) throw unknownTool(name);
    const idempotencyKey = params._meta?.[MCP_IDEMPOTENCY_META];
    // A tool that always runs in the background is a task: only a client of the extension gets
    // one; on 2026-07-28 another client is told so (-32021), a 2025 one is answered in the request.
    if (tool.runtime.async === 'required' && io.tasks) {
      io.background = { id: newInvocationId(), waitMs: 0 };
    } else if (tool.runtime.async === 'required' && io.modern) {
      throw tasksRequired();
    }
    try {
      const running = this.invoker.invoke({ ...caller, idempotencyKey }, tool, args, io);
      const outcome =
        io.tasks && tool.runtime.async === 'allowed'
          ? await this.tasks.answerOrTask(tool, io, running)
          : { answer: await running };
      if ('task' in outcome) return this.tasks.created(outcome.task) as CallToolResult;
      if (outcome.answer instanceof Accepted) {
        return this.tasks.created(outcome.answer.record) as CallToolResult;
      }
      return success(outcome.answer);
    } catch (error) {
      // Arguments that fail validation are a result the model can read and correct (MCP spec).
      if (error instanceof ValidationFailed) return failure(error.issues);
      const answer = errorAnswer(error, this.logger, `MCP tool ${name}`, logFields);
      return failure(answer.detail, answer.headers['Retry-After']);
    }
  }
}
