import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { Observable } from 'rxjs';
import type { ApiRequest } from '../auth/authenticated-key';
import { TOOL_METADATA } from '../tools/tool.decorator';
import { quotaHeaders, QuotaService } from './quota.service';

/**
 * Counts every tool call that got past authentication, scope and rate limit, before its body is
 * validated: a call counts once whatever its outcome, and a 402 is not counted.
 */
@Injectable()
export class QuotaInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly quota: QuotaService,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType() !== 'http' || !this.reflector.get(TOOL_METADATA, context.getHandler())) {
      return next.handle();
    }
    const http = context.switchToHttp();
    const key = http.getRequest<ApiRequest>().apiKey;
    if (key) {
      const state = await this.quota.consume(key);
      const res = http.getResponse<Response>();
      for (const [name, value] of Object.entries(quotaHeaders(state))) res.setHeader(name, value);
    }
    return next.handle();
  }
}
