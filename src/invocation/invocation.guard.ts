import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { BearerErrorCodes, Public, Scopes } from '../auth/auth.decorators';
import type { Scope } from '../auth/scopes';
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
/** What a route declares about its calls, read once per handler (decorators do not change). */
interface RouteFacts {
  public: boolean;
  scopes?: Scope[];
  tool?: string;
  bearerErrorCodes: boolean;
  rateCounted: boolean;
}

@Injectable()
export class InvocationGuard implements CanActivate {
  /** By controller class, then handler: an inherited handler may serve classes that differ. */
  private readonly facts = new WeakMap<object, WeakMap<object, RouteFacts>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly pipeline: InvocationPipeline,
    private readonly exchange: HttpExchange,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const route = this.routeFacts(context);
    if (route.public) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<ApiRequest>();
    const tool = route.tool;
    const invocation: Invocation = {
      transport: 'rest',
      authorization: this.exchange.headerValues(req, 'authorization'),
      client: req.ip ?? 'unknown',
      requestId: req.id,
      scopes: route.scopes,
      tool,
      bearerErrorCodes: route.bearerErrorCodes,
      rateCounted: route.rateCounted,
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
      for (const name in invocation.headers) {
        this.exchange.setHeader(res, name, invocation.headers[name]);
      }
    }
    return true;
  }

  private routeFacts(context: ExecutionContext): RouteFacts {
    const [handler, controller] = [context.getHandler(), context.getClass()];
    let byHandler = this.facts.get(controller);
    if (!byHandler) this.facts.set(controller, (byHandler = new WeakMap()));
    let facts = byHandler.get(handler);
    if (!facts) {
      const targets = [handler, controller];
      facts = {
        public: this.reflector.getAllAndOverride(Public, targets) === true,
        scopes: this.reflector.getAllAndOverride(Scopes, targets),
        tool: this.reflector.get(ToolMetadata, handler)?.name,
        bearerErrorCodes: this.reflector.getAllAndOverride(BearerErrorCodes, targets) === true,
        rateCounted: this.reflector.getAllAndOverride(CountsOwnRate, targets) === true,
      };
      byHandler.set(handler, facts);
    }
    return facts;
  }
}
