import { HttpException, Injectable, Optional } from '@nestjs/common';
import { callerActor } from '../audit/audit.context';
import type { ApiRequest } from '../auth/caller';
import type { ValidationIssue } from '../common/validation-issue';
import { answerOf } from '../errors/all-exceptions.filter';
import { ApiError, IdempotentReplay, InputRefused, ValidationFailed } from '../errors/api-error';
import { MAX_BODY_DEPTH, TOO_DEEP } from '../http/body';
import { HttpExchange } from '../http/http-exchange';
import { MetricsService } from '../metrics/metrics.service';
import { ToolContext, ToolRunner } from '../tools/tool-runner';
import { TOOL_SCOPE } from '../tools/tool.decorator';
import { RegisteredTool, ToolRegistry } from '../tools/tool.registry';
import { ApiValidationPipe, nestedDeeperThan } from '../validation/validation.pipe';
import { AnswerFacts, Call, callerOf } from './call';
import { InvocationPipeline } from './invocation.pipeline';

/**
 * Who calls a tool over MCP: what its transport knows of the call, the tool and its arguments
 * aside; and, when the transport writes the answer's headers, where to hand them once known.
 */
export type ToolCaller = Omit<Call, 'scopes' | 'tool' | 'bearerErrorCodes' | 'body'> & {
  onAnswer?: (answer: AnswerFacts) => void;
};

/**
 * The runtime of a tool call, one for every transport: the pipeline's steps (authentication,
 * scope, rate limit, idempotency, quota), then validation by the same pipe, the tool, and its kept
 * answer (the idempotency step's Claim). REST's tool routes come here (serve: a ToolRunner), and
 * so do MCP over HTTP and stdio (invoke); errors are REST's, for the transport to translate.
 */
@Injectable()
export class ToolInvoker extends ToolRunner {
  private readonly validation = new ApiValidationPipe();

  constructor(
    private readonly pipeline: InvocationPipeline,
    private readonly registry: ToolRegistry,
    private readonly exchange: HttpExchange,
    // Absent in the stdio server, which serves no /metrics.
    @Optional() private readonly metrics?: MetricsService,
  ) {
    super();
  }

  /**
   * A tool's REST route: the answer's body, or a thrown refusal for the exception filter (a replay
   * too: IdempotentReplay); the headers the pipeline decided are set on `res` either way.
   */
  async serve(name: string, req: object, res: object): Promise<unknown> {
    const tool = this.registry.get(name);
    if (!tool) throw new Error(`No tool named '${name}' is registered`);
    const request = req as ApiRequest;
    const answer: AnswerFacts = { headers: {} };
    try {
      return await this.run(
        {
          transport: 'rest',
          authorization: this.exchange.headerValues(req, 'authorization'),
          client: request.ip ?? 'unknown',
          requestId: request.id,
          scopes: [TOOL_SCOPE],
          tool: name,
          bearerErrorCodes: false,
          body: request.body,
          idempotencyKey: request.headers['idempotency-key'],
        },
        tool,
        request.body,
        answer,
      );
    } finally {
      request.caller = answer.caller;
      for (const header in answer.headers) {
        this.exchange.setHeader(res, header, answer.headers[header]);
      }
    }
  }

  /**
   * A tool called over MCP: the tool's answer exactly as REST would send it as the response body.
   * With an idempotency key (MCP: `_meta["io.tis/idempotency-key"]`) a kept answer is replayed as
   * REST would replay it.
   */
  async invoke(caller: ToolCaller, tool: RegisteredTool, args: unknown): Promise<unknown> {
    const { onAnswer, ...known } = caller;
    const answer: AnswerFacts = { headers: {} };
    try {
      const call: Call = {
        ...known,
        scopes: [TOOL_SCOPE],
        tool: tool.name,
        bearerErrorCodes: false,
        body: args ?? {},
      };
      const body = await this.run(call, tool, args, answer).catch(replayed);
      this.metrics?.observeToolCall(tool.name, 200);
      return body;
    } catch (error) {
      // Counted like the REST call that would have answered this status.
      const status = error instanceof HttpException ? error.getStatus() : 500;
      if (status === 429) this.metrics?.observeRateLimited('key');
      this.metrics?.observeToolCall(tool.name, status);
      throw error;
    } finally {
      onAnswer?.(answer);
    }
  }

  private async run(
    call: Call,
    tool: RegisteredTool,
    args: unknown,
    answer?: AnswerFacts,
  ): Promise<unknown> {
    // MCP arguments nested too deeply are refused before any step, as REST refuses such a body
    // while reading it: before authentication, and counted nowhere. (An MCP body was depth-checked
    // whole as it was read, with its envelope's levels on top; its arguments are checked alone.)
    if (call.transport !== 'rest' && nestedDeeperThan(args, MAX_BODY_DEPTH)) {
      throw new InputRefused([TOO_DEEP]);
    }
    const decided = await this.pipeline.check(call, answer);
    const caller = callerOf(decided);
    // The tool runs as its caller for the audit trail (over HTTP, with the request's id).
    const context: ToolContext = { caller, ...callerActor(caller, call.requestId ?? null) };
    const claim = decided.claim;
    try {
      const result = await tool.invoke(await this.validate(tool, args), context);
      // REST's answer is serialised by the adapter: made JSON here only where it is kept or is MCP's.
      if (!claim && call.transport === 'rest') return result;
      const body = asJsonBody(result);
      await claim?.keep(200, body);
      return body;
    } catch (error) {
      if (claim) {
        const refused = answerOf(error);
        await claim.keep(
          refused.status,
          { detail: refused.detail },
          !(error instanceof InputRefused),
        );
      }
      throw error;
    }
  }

  private validate(tool: RegisteredTool, args: unknown): Promise<object> {
    return this.validation.transform(args, {
      type: 'body',
      metatype: tool.input,
    }) as Promise<object>;
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
