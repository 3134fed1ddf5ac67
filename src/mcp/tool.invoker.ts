import { HttpException, Injectable, Optional } from '@nestjs/common';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import { hasScope } from '../auth/scopes';
import { INSUFFICIENT_PERMISSIONS } from '../auth/scopes.guard';
import { ApiError } from '../errors/api-error';
import { ApiValidationPipe } from '../errors/validation';
import { KeyRateLimiter } from '../limits/key-rate-limiter';
import { QuotaService } from '../limits/quota.service';
import { MetricsService } from '../metrics/metrics.service';
import { TOOL_SCOPE } from '../tools/tool.decorator';
import type { RegisteredTool } from '../tools/tool.registry';

/**
 * Runs a registered tool for a key outside the REST pipeline, with the same checks in the same order
 * and through the same components as a REST call: scope (403), rate limit (429, the key's one
 * budget), daily quota (402; the call counts once whatever follows), validation (ValidationFailed,
 * the pydantic issues), then the handler. Its errors are REST's, for the caller to translate.
 */
@Injectable()
export class ToolInvoker {
  private readonly validation = new ApiValidationPipe();

  constructor(
    private readonly rateLimiter: KeyRateLimiter,
    private readonly quota: QuotaService,
    // Absent in the stdio server, which serves no /metrics.
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  /** The tool's answer exactly as REST would send it as the response body. */
  async invoke(
    key: AuthenticatedKey,
    tool: RegisteredTool,
    args: unknown,
    options: { rateCounted: boolean },
  ): Promise<unknown> {
    try {
      const body = await this.run(key, tool, args, options.rateCounted);
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
    key: AuthenticatedKey,
    tool: RegisteredTool,
    args: unknown,
    rateCounted: boolean,
  ): Promise<unknown> {
    if (!hasScope(key.scopes, TOOL_SCOPE)) throw new ApiError(403, INSUFFICIENT_PERMISSIONS);
    if (!rateCounted) await this.rateLimiter.consume(key);
    await this.quota.consume(key);
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
