import { spans } from '../tracing';
import { Injectable, Optional } from '@nestjs/common';
import type { Caller } from '../subjects';
import { ApiError } from '../kernel/errors/api-error';
import { MetricsService } from '../metrics';
import type { ToolContext, RegisteredTool } from '../tools/index';
import { CallControl, CallStopped } from './call-control';
import type { Admission } from './tool-slots';

/** Where a call's progress goes (an MCP client's notifications, an invocation's record). */
export type ProgressSink = (done: number, total: number | null, message: string | null) => void;

/**
 * What watches a call's client while the call waits or runs (a connection closing, a cancel), set
 * up only for a call that does not end at once; returns its undo.
 */
export type ClientWatch = (control: CallControl) => (() => void) | void;

/** A progress message is cut to this many characters. */
const MAX_PROGRESS_MESSAGE = 1000;

/** The 504 of a tool past its deadline. */
export function deadlinePassed(tool: RegisteredTool): ApiError {
  return new ApiError(
    504,
    `Tool '${tool.name}' did not finish within ${tool.runtime.timeoutMs} ms`,
  );
}

/** What a handler runs as: the caller and audit actor of its call. */
export type ToolActor = Omit<ToolContext, 'signal' | 'progress'>;

/**
 * A handler's context: its call's actor, signal and progress. A class, so that the signal (and
 * its AbortController) is made only when the handler asks for it.
 */
class CallContext implements ToolContext {
  readonly caller: Caller;
  readonly actorKeyId: string | null;
  readonly actorPrincipalId?: string | null;
  readonly requestId: string | null;
  private last = -Infinity;

  constructor(
    actor: ToolActor,
    private readonly control: CallControl,
    private readonly sink: ProgressSink | undefined,
  ) {
    this.caller = actor.caller;
    this.actorKeyId = actor.actorKeyId;
    this.actorPrincipalId = actor.actorPrincipalId;
    this.requestId = actor.requestId;
  }

  get signal(): AbortSignal {
    return this.control.signal;
  }

  /** Only finite numbers, only forward (MCP asks progress to increase), the message cut. */
  readonly progress = (done: number, total?: number, message?: string): void => {
    if (!this.sink || typeof done !== 'number' || !Number.isFinite(done) || done <= this.last) {
      return;
    }
    this.last = done;
    const whole = typeof total === 'number' && Number.isFinite(total) ? total : null;
    const text = typeof message === 'string' ? message.slice(0, MAX_PROGRESS_MESSAGE) : null;
    this.sink(done, whole, text);
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Runs one tool handler inside its call's controls: it waits for its slot (the admission's), gets a
 * context whose signal is the call's, and its answer is taken unless the call is stopped first
 * (deadline, client gone, cancel): then CallStopped, and whatever the handler answers later is
 * dropped. The slot is held until the handler settles, answered or not.
 *
 * A handler that answers synchronously (greet) is done before anything could stop it: it gets no
 * deadline timer, no watch on its client and no race, and costs the call next to nothing. The
 * deadline runs from the call's wait for a slot, else from its handler's start.
 */
@Injectable()
export class ToolExecution {
  constructor(@Optional() private readonly metrics?: MetricsService) {}

  /** The call run, in its span `execute_tool {tool}` when tracing is on (docs/observability.md). */
  execute(
    tool: RegisteredTool,
    input: object,
    actor: ToolActor,
    control: CallControl,
    admission: Admission,
    progress?: ProgressSink,
    watch?: ClientWatch,
  ): Promise<unknown> {
    const facts = {
      tool: tool.name,
      callerKind: actor.caller.kind,
      callerId: actor.caller.id,
      cost: tool.runtime.cost,
      input,
    };
    return spans.tool(facts, () =>
      this.perform(tool, input, actor, control, admission, progress, watch),
    );
  }

  private async perform(
    tool: RegisteredTool,
    input: object,
    actor: ToolActor,
    control: CallControl,
    admission: Admission,
    progress?: ProgressSink,
    watch?: ClientWatch,
  ): Promise<unknown> {
    let unwatch: (() => void) | void = undefined;
    if (admission.queued) {
      unwatch = watch?.(control);
      control.deadline(tool.runtime.timeoutMs);
      try {
        await admission.started(control.signal);
      } catch {
        unwatch?.();
        throw new CallStopped(control.stopReason ?? 'cancelled');
      }
    }
    let answer: unknown;
    try {
      answer = tool.invoke(input, new CallContext(actor, control, progress));
    } catch (error) {
      this.over(admission, control, unwatch);
      throw error;
    }
    if (!isPromiseLike(answer)) {
      this.over(admission, control, unwatch);
      return answer;
    }
    unwatch ??= watch?.(control);
    control.deadline(tool.runtime.timeoutMs);
    let settled = false;
    const running = Promise.resolve(answer);
    running.then(
      () => ((settled = true), admission.release()),
      () => ((settled = true), admission.release()),
    );
    try {
      return await control.settle(running);
    } catch (error) {
      if (error instanceof CallStopped && !settled) this.metrics?.observeAbandoned(tool.name);
      throw error;
    } finally {
      control.finish();
      unwatch?.();
    }
  }

  private over(admission: Admission, control: CallControl, unwatch: (() => void) | void): void {
    admission.release();
    control.finish();
    unwatch?.();
  }
}
