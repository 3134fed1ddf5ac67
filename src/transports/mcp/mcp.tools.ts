import { Injectable, Logger } from '@nestjs/common';
import {
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { errorAnswer, STATUS_TEXT } from '../../kernel/errors/answer';
import { ValidationFailed } from '../../kernel/errors/api-error';
import { MCP_IDEMPOTENCY_META } from '../../idempotency';
import {
  newInvocationId,
  Accepted,
  CallIo,
  PostRefused,
  ToolCaller,
  ToolInvoker,
} from '../../invocations';
import type { CallResponse } from '../../invocations';
import type { QuotaState } from '../../limits';
import { echoedName } from '../../kernel/validation/issues';
import { isPlainObject } from '../../kernel/common/plain-object';
import { failure, sourceResult, success } from './mcp-results';
import { McpTasks, tasksRequired } from './mcp.tasks';
import { McpToolList } from './mcp-tool-list';
import type { McpCatalog } from './mcp-catalog';
import type { Caller } from '../../subjects';

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

/**
 * The MCP revisions served: 2026-07-28 (a per-request envelope in `_meta`, no session) and the
 * 2025 ones (an `initialize` handshake first).
 */
export type McpRevision = '2026-07-28' | '2025';

/** A 2025 request without `MCP-Protocol-Version` speaks this revision (the transport's rule). */
export const DEFAULT_LEGACY_VERSION = '2025-03-26';

/**
 * The exact revision a message speaks (`mcp.protocol.version`): its 2026-07-28 envelope's, in its
 * `_meta`, else the 2025 `MCP-Protocol-Version` header, else what the connection agreed (stdio's
 * or the message's own `initialize`), else 2025-03-26.
 */
export function exactProtocolVersion(
  meta: unknown,
  header: string | undefined,
  agreed?: string,
): string {
  const enveloped = isPlainObject(meta) ? meta[PROTOCOL_VERSION_META_KEY] : undefined;
  if (typeof enveloped === 'string') return enveloped;
  return header ?? agreed ?? DEFAULT_LEGACY_VERSION;
}

/** How a transport runs an MCP tool call: its controls and progress, the client's revision and tasks. */
export interface McpCallIo extends CallIo {
  /** The client's revision. */
  revision: McpRevision;
  /** The client declared the tasks extension on this request. */
  tasks: boolean;
  /**
   * The call's progress notifications written (when the client asked for progress): awaited
   * before its result, which closes the request's stream, so that none comes after it, lost.
   */
  notified?: () => Promise<unknown>;
}

/** Where an MCP result says what the call cost and where its caller stands. */
export const QUOTA_META = 'io.tis/quota';

/**
 * A counted call's result with `_meta["io.tis/quota"]`: its cost, the day's figures (as the
 * `X-Quota-*` headers give them) and the month's, or null without a monthly limit; a run's call,
 * its run's `{budget, spent, remaining}` too.
 */
function withQuota(result: CallToolResult, quota: QuotaState | undefined): CallToolResult {
  if (!quota || quota.cost === undefined) return result;
  const monthly = quota.monthly && {
    limit: quota.monthly.limit,
    used: quota.monthly.used,
    remaining: quota.monthly.remaining,
    resets_at: quota.monthly.resetsAt.toISOString(),
  };
  // `_meta` first, where the SDK's own parse of a result puts it (the fast path writes the same).
  return {
    _meta: {
      [QUOTA_META]: {
        cost: quota.cost,
        used: quota.used,
        limit: quota.limit,
        remaining: quota.remaining,
        resets_at: quota.resetsAt.toISOString(),
        monthly,
        ...(quota.run ? { run: quota.run } : {}),
      },
    },
    ...result,
  };
}

function unknownTool(name: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `${STATUS_TEXT[404]}: no tool named '${echoedName(name)}'`,
    { detail: STATUS_TEXT[404] },
  );
}

/**
 * The tools as MCP serves them, for every way MCP is answered (the SDK's entry over HTTP and stdio,
 * and the fast path in front of it), over an endpoint's catalog: `tools/list` sorted by name and built once;
 * `tools/call` through the same runtime as REST (ToolInvoker), its refusals and failures turned
 * into `isError` results with REST's detail text, an unknown tool a -32602 error.
 */
@Injectable()
export class McpTools {
  private readonly logger = new Logger('Mcp');

  constructor(
    private readonly invoker: ToolInvoker,
    private readonly tasks: McpTasks,
    private readonly toolList: McpToolList,
  ) {}

  /** Whether the endpoint's catalog has a tool of that name. */
  knows(name: string, catalog: McpCatalog): boolean {
    return catalog.tool(name) !== undefined;
  }

  /** Whether the tool always runs in the background (a task for a client of the extension). */
  runsInBackground(name: string, catalog: McpCatalog): boolean {
    return catalog.tool(name)?.runtime.async === 'required';
  }

  /** The tools/list result's own fields, for `caller` (McpToolList). */
  list(caller: Caller | undefined, catalog: McpCatalog): { tools: Tool[] } {
    return this.toolList.forCaller(caller, catalog);
  }

  /**
   * A tools/call as `caller`: its result, or a ProtocolError for an unknown tool. `args` are the
   * arguments as the client sent them, when the transport still has them: the SDK's own parse of
   * the params rebuilds the arguments object, and a `__proto__` key then becomes its prototype
   * instead of the extra field REST refuses. The name is the catalog's (McpCatalog): on a
   * source's own endpoint, the upstream's.
   */
  async call(
    caller: ToolCaller,
    params: ToolCallParams,
    logFields: LogFields,
    args: unknown,
    io: McpCallIo,
    catalog: McpCatalog,
  ): Promise<CallToolResult> {
    const name = params.name;
    const input = args === undefined ? params.arguments : args;
    const tool = catalog.tool(name);
    if (!tool) throw unknownTool(name);
    const idempotencyKey = params._meta?.[MCP_IDEMPOTENCY_META];
    // A tool that always runs in the background is a task: only a client of the extension gets
    // one; on 2026-07-28 another client is told so (-32021), a 2025 one is answered in the request.
    if (tool.runtime.async === 'required' && io.tasks) {
      io.background = { id: newInvocationId(), waitMs: 0 };
    } else if (tool.runtime.async === 'required' && io.revision === '2026-07-28') {
      throw tasksRequired();
    }
    let quota: QuotaState | undefined;
    const onAnswer = (answer: CallResponse) => {
      quota = answer.quota;
      caller.onAnswer?.(answer);
    };
    try {
      const running = this.invoker.invoke({ ...caller, idempotencyKey, onAnswer }, tool, input, io);
      const outcome =
        io.tasks && tool.runtime.async === 'allowed'
          ? await this.tasks.answerOrTask(tool, io, running)
          : { answer: await running };
      if ('task' in outcome) return this.tasks.created(outcome.task) as CallToolResult;
      if (outcome.answer instanceof Accepted) {
        return this.tasks.created(outcome.answer.record) as CallToolResult;
      }
      // A source's tool answers the upstream's own result (content, structuredContent, isError).
      const result = tool.answersMcpResult ? sourceResult(outcome.answer) : success(outcome.answer);
      return withQuota(result, quota);
    } catch (error) {
      // The POST's own refusal, for its transport to answer.
      if (error instanceof PostRefused) throw error;
      // Arguments that fail validation are a result the model can read and correct (MCP spec).
      if (error instanceof ValidationFailed) return withQuota(failure(error.issues), quota);
      const answer = errorAnswer(error, this.logger, `MCP tool ${name}`, logFields);
      return withQuota(failure(answer.detail, answer.headers['Retry-After']), quota);
    }
  }
}
