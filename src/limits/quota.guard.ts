import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import type { ApiRequest } from '../auth/authenticated-key';
import { TOOL_METADATA } from '../tools/tool.decorator';
import { quotaHeaders, QuotaService } from './quota.service';

/**
 * Counts every tool call that got past authentication, scope and rate limit, before its body is
 * validated: a call counts once whatever its outcome, and a 402 is not counted.
 *
 * A guard rather than an interceptor: it runs after the other guards and before the pipes, which
 * is the contract's order, and an application without interceptors skips Nest's rxjs interceptor
 * chain on every request (measured: about a tenth of a tool call's cost; see bench/README.md).
 */
@Injectable()
export class QuotaGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly quota: QuotaService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http' || !this.reflector.get(TOOL_METADATA, context.getHandler())) {
      return true;
    }
    const http = context.switchToHttp();
    const key = http.getRequest<ApiRequest>().apiKey;
    if (key) {
      const state = await this.quota.consume(key);
      const res = http.getResponse<Response>();
      for (const [name, value] of Object.entries(quotaHeaders(state))) res.setHeader(name, value);
    }
    return true;
  }
}
