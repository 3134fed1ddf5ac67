import { HttpException, Injectable, Optional } from '@nestjs/common';
import { MetricsService } from '../metrics/metrics.service';
import { TOOL_SCOPE } from '../tools/tool.decorator';
import type { RegisteredTool } from '../tools/tool.registry';
import { ApiError, IdempotentReplay, InputRefused, ValidationFailed } from '../errors/api-error';
import { actorOf, type AuditActor } from '../audit/audit.context';
import type { ValidationIssue } from '../common/validation-issue';
import { answerOf } from '../errors/all-exceptions.filter';
import { MAX_BODY_DEPTH, TOO_DEEP } from '../http/body';
import { ApiValidationPipe, nestedDeeperThan } from '../validation/validation.pipe';
import { Invocation } from './invocation';
import { InvocationPipeline } from './invocation.pipeline';

/** Who calls a tool outside REST: what an MCP transport knows of its caller. */
export type ToolCaller = Pick<
  Invocation,
  'transport' | 'authorization' | 'client' | 'rateCounted' | 'key' | 'requestId'
>;

/**
 * Runs a registered tool for a caller outside REST (MCP over HTTP and stdio): the pipeline's steps
 * (the same as REST's, in the same order), then validation by the same pipe as REST's, the tool,
 * and the same metrics. Its errors are REST's, for the transport to translate.
 */
@Injectable()
export class ToolInvoker {
  private readonly validation = new ApiValidationPipe();

  constructor(
    private readonly pipeline: InvocationPipeline,
    // Absent in the stdio server, which serves no /metrics.
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  /**
   * The tool's answer exactly as REST would send it as the response body. With an idempotency key
   * (MCP: `_meta["io.tis/idempotency-key"]`) a kept answer is replayed as REST would replay it.
   */
  async invoke(
    caller: ToolCaller,
    tool: RegisteredTool,
    args: unknown,
    idempotencyKey?: unknown,
  ): Promise<unknown> {
    try {
      const body = await this.run(caller, tool, args, idempotencyKey).catch(replayed);
      this.metrics?.observeToolCall(tool.name, 200);
      return body;
    } catch (error) {
      // Counted like the REST call that would have answered this status.
      const status = error instanceof HttpException ? error.getStatus() : 500;
      if (status === 429) this.metrics?.observeRateLimited('key');
      this.metrics?.observeToolCall(tool.name, status);
      throw error;
    }
  }

  private async run(
    caller: ToolCaller,
    tool: RegisteredTool,
    args: unknown,
    idempotencyKey: unknown,
  ): Promise<unknown> {
    const invocation: Invocation = {
      ...caller,
      scopes: [TOOL_SCOPE],
      tool: tool.name,
      bearerErrorCodes: false,
      headers: {},
      body: args ?? {},
      idempotencyKey,
    };
    // Arguments nested too deeply are refused before any step, as REST refuses such a body while
    // reading it: before authentication, and counted nowhere. (An MCP body was depth-checked whole
    // as it was read, with its envelope's levels on top; its arguments are checked on their own.)
    if (nestedDeeperThan(args, MAX_BODY_DEPTH)) throw new InputRefused([TOO_DEEP]);
    await this.pipeline.check(invocation);
    const keep = invocation.keepAnswer;
    // The tool runs as the key for the audit trail (over HTTP, with the request's id).
    const actor = actorOf({ id: caller.requestId, apiKey: invocation.key });
    try {
      const body = await this.validateAndRun(tool, args, actor);
      await keep?.(200, body);
      return body;
    } catch (error) {
      const answer = answerOf(error);
      await keep?.(answer.status, { detail: answer.detail }, !(error instanceof InputRefused));
      throw error;
    }
  }

  private async validateAndRun(
    tool: RegisteredTool,
    args: unknown,
    actor: AuditActor,
  ): Promise<unknown> {
    const input = (await this.validation.transform(args, {
      type: 'body',
      metatype: tool.input,
    })) as object;
    return asJsonBody(await tool.invoke(input, actor));
  }
}

/**
 * A kept answer as this transport's caller gets it: the body of a 2xx, else the error REST
 * answered (a 400 list as a validation failure again). Any other error passes through.
 */
function replayed(error: unknown): unknown {
  if (!(error instanceof IdempotentReplay)) throw error;
  const status = error.getStatus();
  if (status < 300) return error.body;
  const detail = (error.body as { detail?: unknown } | null)?.detail;
  if (status === 400 && Array.isArray(detail))
    throw new ValidationFailed(detail as ValidationIssue[]);
  throw new ApiError(status, detail);
}

/** What a client reads after JSON serialisation: no undefined fields, dates as strings, no classes. */
function asJsonBody(result: unknown): unknown {
  return JSON.parse(JSON.stringify(result ?? null)) as unknown;
}
