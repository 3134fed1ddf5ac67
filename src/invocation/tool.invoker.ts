import { HttpException, Injectable, Optional } from '@nestjs/common';
import { MetricsService } from '../metrics/metrics.service';
import { TOOL_SCOPE } from '../tools/tool.decorator';
import type { RegisteredTool } from '../tools/tool.registry';
import { ValidationFailed } from '../errors/api-error';
import { MAX_BODY_DEPTH, TOO_DEEP } from '../http/express-body';
import { ApiValidationPipe, nestedDeeperThan } from '../validation/validation.pipe';
import { Invocation } from './invocation';
import { InvocationPipeline } from './invocation.pipeline';

/** Who calls a tool outside REST: what an MCP transport knows of its caller. */
export type ToolCaller = Pick<
  Invocation,
  'transport' | 'authorization' | 'client' | 'rateCounted' | 'key'
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

  /** The tool's answer exactly as REST would send it as the response body. */
  async invoke(caller: ToolCaller, tool: RegisteredTool, args: unknown): Promise<unknown> {
    try {
      const body = await this.run(caller, tool, args);
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

  private async run(caller: ToolCaller, tool: RegisteredTool, args: unknown): Promise<unknown> {
    await this.pipeline.check({
      ...caller,
      scopes: [TOOL_SCOPE],
      tool: tool.name,
      bearerErrorCodes: false,
      headers: {},
    });
    // An MCP body was depth-checked whole as it was read; its arguments are checked on their own.
    if (nestedDeeperThan(args, MAX_BODY_DEPTH)) throw new ValidationFailed([TOO_DEEP]);
    const input = (await this.validation.transform(args, {
      type: 'body',
      metatype: tool.input,
    })) as object;
    return asJsonBody(await tool.invoke(input));
  }
}

/** What a client reads after JSON serialisation: no undefined fields, dates as strings, no classes. */
function asJsonBody(result: unknown): unknown {
  return JSON.parse(JSON.stringify(result ?? null)) as unknown;
}
