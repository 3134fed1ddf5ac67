import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { BearerErrorCodes, Public, Scopes } from '../auth/auth.decorators';
import type { ApiRequest } from '../auth/authenticated-key';
import { HttpExchange } from '../http/http-exchange';
import { ToolMetadata } from '../tools/tool.decorator';
import { CountsOwnRate } from './invocation.decorators';
import { Invocation } from './invocation';
import { InvocationPipeline } from './invocation.pipeline';

/**
 * The REST adapter of the invocation pipeline, the one global guard: it reads what the route
 * declares (@Public, @Scopes, @Tool, ...) into an Invocation, runs the pipeline, and hands the key
 * and the answer's headers to the request. Deny by default: only @Public routes skip it.
 */
@Injectable()
export class InvocationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly pipeline: InvocationPipeline,
    private readonly exchange: HttpExchange,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride(Public, targets)) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<ApiRequest>();
    const tool = this.reflector.get(ToolMetadata, context.getHandler())?.name;
    const invocation: Invocation = {
      transport: 'rest',
      authorization: this.exchange.nodeRequest(req).headersDistinct.authorization ?? [],
      client: req.ip ?? 'unknown',
      scopes: this.reflector.getAllAndOverride(Scopes, targets),
      tool,
      bearerErrorCodes: this.reflector.getAllAndOverride(BearerErrorCodes, targets) === true,
      rateCounted: this.reflector.getAllAndOverride(CountsOwnRate, targets) === true,
      headers: {},
      ...(tool === undefined
        ? {}
        : { body: req.body, idempotencyKey: req.headers['idempotency-key'] }),
    };
    try {
      await this.pipeline.check(invocation);
    } finally {
      req.apiKey = invocation.key;
      req.keepAnswer = invocation.keepAnswer;
      const res = http.getResponse<object>();
      for (const [name, value] of Object.entries(invocation.headers)) {
        this.exchange.setHeader(res, name, value);
      }
    }
    return true;
  }
}
