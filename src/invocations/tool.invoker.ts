import { HttpException, Injectable, Optional } from '@nestjs/common';
import { callerActor } from '../audit';
import type { Caller } from '../subjects';
import { answerOf } from '../kernel/errors/answer';
import { ApiError, IdempotentReplay, InputRefused } from '../kernel/errors/api-error';
import { rateHeaders, LimitsService } from '../limits';
import { MAX_BODY_DEPTH, TOO_DEEP } from '../kernel/http/body';
import { MetricsService } from '../metrics';
import type { InvocationRecord } from './invocation.store';
import type { RegisteredTool } from '../tools/index';
import { Accepted, asJsonBody, CallIo, PostRefused, replayedAnswer, ToolCaller } from './call-io';

export { Accepted, type CallIo, PostRefused, type ToolCaller } from './call-io';
import { ANY_TOOL_SCOPE, toolScopes } from '../kernel/auth/scopes';
import { ApiValidationPipe } from '../kernel/validation/validation.pipe';
import { nestedDeeperThan } from '../kernel/common/plain-object';
import { CallResponse, Call } from './call';
import { AdmittedCall, CallChecks } from './call-checks';
import { CallControl, CallStopped } from './call-control';
import { deadlinePassed, ToolActor, ToolExecution } from './execution';
import type { CallOrigin, ChargedCredits } from './invocation-records';
import { invocationView } from './invocation.view';
import { LongRunningCalls } from './long-running-calls';
import type { Admission } from './tool-slots';
import type { IdempotencyEntry } from '../idempotency';
import { AtCapacity } from './at-capacity';

/** Seconds since `started` (a `performance.now()`). */
function secondsSince(started: number): number {
  return (performance.now() - started) / 1000;
}

/** What a call was charged, once counted: what its refund gives back if it never runs. */
function chargedOf({ charge }: AdmittedCall): ChargedCredits | undefined {
  if (charge.status !== 'charged' || !charge.credits) return undefined;
  return { day: charge.credits.day, credits: charge.credits.cost, entry: charge.credits.entry };
}

/**
 * The runtime of a tool call, one for every transport: its checks (CallChecks: authentication,
 * scope, admission, rate limit, idempotency, capacity, credits), then validation by the same pipe,
 * the tool within its deadline and slot (ToolExecution), and its kept answer (its
 * IdempotencyEntry); or, for a call to run in the background, its invocation (LongRunningCalls).
 * REST's tool routes come here (ToolRoutes, src/transports/rest/tool-routes.ts), and so do MCP over HTTP and stdio (invoke); errors
 * are REST's, for the transport to translate.
 */
@Injectable()
export class ToolInvoker {
  private readonly validation = new ApiValidationPipe();

  constructor(
    private readonly checks: CallChecks,
    private readonly execution: ToolExecution,
    private readonly longCalls: LongRunningCalls,
    private readonly limits: LimitsService,
    // Absent in the stdio server, which serves no /metrics.
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  /**
   * A tool called over MCP: the tool's answer exactly as REST would send it as the response body,
   * or Accepted when it runs in the background. With an idempotency key (MCP:
   * `_meta["io.tis/idempotency-key"]`) a kept answer is replayed as REST would replay it.
   */
  async invoke(
    caller: ToolCaller,
    tool: RegisteredTool,
    args: unknown,
    io: CallIo = { control: new CallControl() },
  ): Promise<unknown> {
    const answer: CallResponse = { headers: {} };
    const started = performance.now();
    try {
      // Field by field, not spread: docs/performance.md, "Why the hot path is written as it is".
      const call: Call = {
        transport: caller.transport,
        authorization: caller.authorization,
        client: caller.client,
        requestId: caller.requestId,
        scopes: toolScopes(tool),
        tool: tool.name,
        bearerErrorCodes: false,
        resource: caller.resource,
        body: args ?? {},
        idempotencyKey: caller.idempotencyKey,
        caller: caller.caller,
        rateLimitCounted: caller.rateLimitCounted,
        background: io.background?.id,
      };
      const body = await this.invokeCall(call, tool, args, io, answer).catch((error: unknown) =>
        this.replayed(error),
      );
      this.metrics?.observeToolCall(
        tool.name,
        body instanceof Accepted ? 202 : 200,
        secondsSince(started),
      );
      return body;
    } catch (error) {
      // Counted like the REST call that would have answered this status.
      const status = error instanceof HttpException ? error.getStatus() : 500;
      if (caller.rateLimitCounted === false) {
        // A call that counts its POST's rate: refused, the POST is, and counted with its answer;
        // else the POST carries the rate count the refusal kept (a 402's), as a prepaid POST would.
        if (error instanceof HttpException && status === 429) throw new PostRefused(error);
        if (error instanceof ApiError) rateHeaders(error.headers, answer.headers);
      }
      if (status === 429) this.metrics?.observeRateLimited('key');
      const refused = error instanceof AtCapacity ? error.reason : undefined;
      this.metrics?.observeToolCall(tool.name, status, secondsSince(started), refused);
      throw error;
    } finally {
      caller.onAnswer?.(answer);
    }
  }

  /**
   * Who calls, as the checks' authentication and scope decide it (nothing charged): the caller
   * of an MCP request that is not a tool call (the tasks methods over stdio).
   */
  async identify(caller: ToolCaller): Promise<Caller> {
    const { onAnswer: _, ...known } = caller;
    const { caller: who } = await this.checks.check({
      ...known,
      rateLimitCounted: true,
      scopes: [ANY_TOOL_SCOPE],
      bearerErrorCodes: false,
    });
    return who;
  }

  /** The invocation a call runs as, by id, as any instance sees it now. */
  findInvocation(id: string): Promise<InvocationRecord | undefined> {
    return this.longCalls.find(id);
  }

  /**
   * Runs a call to a tool: its checks, validation, then the tool (or, for a call to run in the
   * background, its invocation) and its kept answer. Errors are REST's (the transport's to turn).
   */
  async invokeCall(
    call: Call,
    tool: RegisteredTool,
    args: unknown,
    io: CallIo,
    answer: CallResponse,
  ): Promise<unknown> {
    // MCP arguments nested too deeply are refused before any check, as REST refuses such a body
    // while reading it: before authentication, and counted nowhere. (An MCP body was depth-checked
    // whole as it was read, with its envelope's levels on top; its arguments are checked alone.)
    if (call.transport !== 'rest' && nestedDeeperThan(args, MAX_BODY_DEPTH)) {
      throw new InputRefused([TOO_DEEP]);
    }
    const admitted = await this.checks.check(call, answer);
    const { caller, entry, admission } = admitted;
    // The tool runs as its caller for the audit trail (over HTTP, with the request's id).
    const actor: ToolActor = { caller, ...callerActor(caller, call.requestId ?? null) };
    io.actor = actor;
    io.charged = chargedOf(admitted);
    if (!admission) throw new Error(`Tool call of '${tool.name}' admitted without a place at it`);
    let input: object;
    try {
      input = await this.validate(tool, args);
    } catch (error) {
      admission.release();
      await entry?.complete(400, { detail: answerOf(error).detail }, false);
      throw error;
    }
    if (io.background) {
      if (!this.longCalls.accepting) {
        admission.release();
        await entry?.abandon();
        throw new ApiError(
          503,
          'Service temporarily unavailable: this instance is shutting down. Retry after 1 second.',
          { 'Retry-After': 1 },
        );
      }
      const idempotencyKey = entry ? String(call.idempotencyKey) : undefined;
      return this.background(
        io.background,
        tool,
        input,
        { actor, charged: io.charged, idempotencyKey },
        admission,
        entry,
      );
    }
    try {
      const result = await this.execution.execute(
        tool,
        input,
        actor,
        io.control,
        admission,
        io.progress,
        io.watch,
      );
      // REST's answer is serialised by the adapter: made JSON here only where it is kept or is MCP's.
      if (!entry && call.transport === 'rest') return result;
      const body = asJsonBody(result);
      await entry?.complete(200, body);
      return body;
    } catch (error) {
      const refusal = this.refusalOf(tool, error);
      const refused = answerOf(refusal);
      // A charged call that failed on the server's side: its tool's `failed` count (by_tool).
      if (refused.status >= 500) void this.limits.countFailure(admitted.charge);
      if (entry) {
        if (error instanceof CallStopped && error.reason !== 'deadline') await entry.abandon();
        else await entry.complete(refused.status, { detail: refused.detail });
      }
      throw refusal;
    }
  }

  /**
   * A call accepted to run in the background: its invocation, and the 202 kept for its
   * Idempotency-Key (a retry gets the same invocation). Waits for its end as long as asked: a call
   * over by then is answered as a synchronous one would be.
   */
  private async background(
    how: { id: string; waitMs: number },
    tool: RegisteredTool,
    input: object,
    origin: CallOrigin,
    admission: Admission,
    entry: IdempotencyEntry | undefined,
  ): Promise<unknown> {
    const record = await this.longCalls.begin(how.id, { ...origin, tool, input, admission });
    const finished = await this.longCalls.awaitFinish(record.id, how.waitMs);
    if (!finished) {
      await entry?.complete(202, invocationView(record));
      return new Accepted(record);
    }
    if (finished.status === 'succeeded') {
      await entry?.complete(200, finished.result);
      return finished.result;
    }
    const error = finished.error ?? { status: 500, detail: 'Internal Server Error' };
    await entry?.complete(error.status, { detail: error.detail });
    throw new ApiError(error.status, error.detail);
  }

  /**
   * What a call stopped before its handler settled is answered: 504 past its deadline; 499 when
   * its client went away or cancelled it (an answer nobody reads, for the logs and metrics).
   */
  private refusalOf(tool: RegisteredTool, error: unknown): unknown {
    if (!(error instanceof CallStopped)) return error;
    if (error.reason === 'deadline') {
      this.metrics?.observeTimeout(tool.name);
      return deadlinePassed(tool);
    }
    return new ApiError(499, error.message);
  }

  /**
   * A kept answer replayed over MCP (replayedAnswer); a kept 202 is the invocation as it stands
   * now, still running in the background (Accepted) or over (its answer).
   */
  private async replayed(error: unknown): Promise<unknown> {
    if (!(error instanceof IdempotentReplay)) throw error;
    const id = (error.body as { id?: unknown } | null)?.id;
    if (error.getStatus() !== 202 || typeof id !== 'string') return replayedAnswer(error);
    const record = await this.longCalls.find(id);
    if (!record) throw new ApiError(404, 'Invocation not found');
    if (record.status === 'queued' || record.status === 'running') return new Accepted(record);
    if (record.status === 'succeeded') return record.result;
    const failure = record.error ?? { status: 500, detail: 'Internal Server Error' };
    throw new ApiError(failure.status, failure.detail);
  }

  private validate(tool: RegisteredTool, args: unknown): Promise<object> {
    if (tool.validateInput) return Promise.resolve(tool.validateInput(args));
    return this.validation.transform(args, {
      type: 'body',
      metatype: tool.input,
    }) as Promise<object>;
  }
}
