import { Inject, Injectable } from '@nestjs/common';
import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { IdempotencyService } from '../../idempotency';
import type { CallIo, InvocationRecord } from '../../invocations';
import {
  INVOCATION_KEEP_MS,
  LongRunningCalls,
  newInvocationId,
  ownsInvocation,
} from '../../invocations';
import type { Caller } from '../../subjects';
import { Settings, SETTINGS } from '../../kernel/settings/settings';
import type { RegisteredTool } from '../../tools/index';
import { isPlainObject } from '../../kernel/common/plain-object';
import { failure, success } from './mcp-results';

/** The tasks extension's name (modelcontextprotocol/ext-tasks, specification/2026-07-28/tasks.md). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** How often a client is asked to poll a working task. */
const POLL_INTERVAL_MS = 1000;

/** The error a client gets for a task method when it did not declare the extension (-32021). */
export function tasksRequired(): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError({
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

/** Whether a request's client capabilities (its 2026-07-28 envelope's) declare the extension. */
export function declaresTasks(capabilities: unknown): boolean {
  return (
    isPlainObject(capabilities) &&
    isPlainObject(capabilities.extensions) &&
    isPlainObject(capabilities.extensions[TASKS_EXTENSION])
  );
}

function unknownTask(): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    'Failed to retrieve task: Task not found',
  );
}

/** The task's view of a call's status (succeeded, and the tool's own failures, are `completed`). */
function taskStatus(record: InvocationRecord): string {
  switch (record.status) {
    case 'queued':
    case 'running':
      return 'working';
    case 'cancelled':
      return 'cancelled';
    case 'failed':
      return record.error_kind === 'runtime' ? 'failed' : 'completed';
    default:
      return 'completed';
  }
}

/**
 * MCP tasks (the `io.modelcontextprotocol/tasks` extension of 2026-07-28) over the service's
 * long-running calls: a task is an invocation, by the same id, visible at
 * `/api/v1/invocations/<id>` too. A call becomes a task when its tool always runs in the background
 * (`async: required`) or when it is still running after MCP_TASK_AFTER_MS (`async: allowed`), for a
 * client that declared the extension. A tool's own error (an `isError` result, a 504 among them)
 * ends a task `completed` with that result; `failed` is for what the service could not finish.
 */
@Injectable()
export class McpTasks {
  constructor(
    private readonly calls: LongRunningCalls,
    private readonly idempotency: IdempotencyService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /** A CreateTaskResult's fields for a call now in the background. */
  created(record: InvocationRecord): Record<string, unknown> {
    return { resultType: 'task', ...this.task(record) };
  }

  /**
   * The call's answer, or, when it is still running after MCP_TASK_AFTER_MS, a task it goes on
   * as (when its caller's budget of kept answers has room for its result; else it is waited for).
   */
  async answerOrTask(
    tool: RegisteredTool,
    io: CallIo,
    running: Promise<unknown>,
  ): Promise<{ answer: unknown } | { task: InvocationRecord }> {
    const startedAt = new Date();
    let timer: NodeJS.Timeout | undefined;
    const later = new Promise<'later'>((resolve) => {
      timer = setTimeout(() => resolve('later'), this.settings.invocations.mcpTaskAfterMs);
    });
    const first = await Promise.race([running.then((answer) => ({ answer })), later]).finally(() =>
      clearTimeout(timer),
    );
    if (first !== 'later' || !io.actor)
      return first === 'later' ? { answer: await running } : first;
    const id = newInvocationId();
    try {
      await this.idempotency.checkResultRoom(io.actor.caller.id);
    } catch {
      return { answer: await running };
    }
    // From now on the call belongs to its task, not to the request that started it.
    io.detach?.();
    const record = await this.calls.adopt(
      id,
      tool,
      { actor: io.actor, charged: io.charged },
      io.control,
      running,
      startedAt,
    );
    return { task: record };
  }

  /** `tasks/get`: the task as it stands, its result or error inline once over. */
  async get(caller: Caller, taskId: unknown): Promise<Record<string, unknown>> {
    const record = await this.own(caller, taskId);
    const task = this.task(record);
    const status = task.status;
    if (status === 'completed') return { ...task, result: this.resultOf(record) };
    if (status === 'failed') {
      return {
        ...task,
        error: { code: ProtocolErrorCode.InternalError, message: String(record.error?.detail) },
      };
    }
    return task;
  }

  /** `tasks/cancel`: asked of the call's instance; the task turns `cancelled` once it stopped. */
  async cancel(caller: Caller, taskId: unknown): Promise<Record<string, never>> {
    const record = await this.own(caller, taskId);
    if (record.status === 'queued' || record.status === 'running')
      await this.calls.cancel(record.id);
    return {};
  }

  /** `tasks/update`: no tool asks for input, so there is nothing to take; known tasks only. */
  async update(caller: Caller, taskId: unknown): Promise<Record<string, never>> {
    await this.own(caller, taskId);
    return {};
  }

  private async own(caller: Caller, taskId: unknown): Promise<InvocationRecord> {
    const record =
      typeof taskId === 'string' && /^inv_[0-9a-f]{32}$/.test(taskId)
        ? await this.calls.find(taskId)
        : undefined;
    if (!record || !ownsInvocation(caller, record)) throw unknownTask();
    return record;
  }

  private task(record: InvocationRecord) {
    const status = taskStatus(record);
    return {
      taskId: record.id,
      status,
      ...(record.progress?.message ? { statusMessage: record.progress.message } : {}),
      createdAt: record.created_at,
      lastUpdatedAt: record.finished_at ?? record.started_at ?? record.created_at,
      ttlMs: INVOCATION_KEEP_MS,
      ...(status === 'working' ? { pollIntervalMs: POLL_INTERVAL_MS } : {}),
    };
  }

  /** A completed task's CallToolResult: the tool's answer, or its error as an `isError` result. */
  private resultOf(record: InvocationRecord): CallToolResult {
    return record.status === 'succeeded' ? success(record.result) : failure(record.error?.detail);
  }
}
