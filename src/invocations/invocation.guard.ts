import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { BearerErrorCodes, OAuthResource, Public, Scopes } from '../kernel/auth/auth.decorators';
import type { ApiRequest } from '../subjects';
import type { ResourceName } from '../kernel/auth/protected-resource';
import type { WantedScope } from '../kernel/auth/scopes';
import { HttpExchange } from '../kernel/http/http-exchange';
import { ToolRoute } from '../tools/index';
import { CallResponse } from './call';
import { CountsOwnRateLimit } from './invocation.decorators';
import { CallChecks } from './call-checks';

/** What a route declares about its calls, read once per handler (decorators do not change). */
interface RouteFacts {
  /** Open to all, or a tool's route (whose runtime runs the checks itself): nothing to check here. */
  unguarded: boolean;
  scopes?: WantedScope[];
  bearerErrorCodes: boolean;
  resource?: ResourceName;
  rateLimitCounted: boolean;
}

/**
 * The REST adapter of a call's checks (CallChecks) for the keyed routes that are not tools (keys,
 * usage, audit, discovery, the /mcp POST), the one global guard: it reads what the route declares
 * (@Public, @Scopes, ...) into a Call, runs the checks, and hands the caller and the answer's
 * headers to the request. Deny by default: only @Public routes skip it. A tool's route runs the
 * same checks in its runtime (ToolInvoker), with the tool.
 */
@Injectable()
export class InvocationGuard implements CanActivate {
  /** By controller class, then handler: an inherited handler may serve classes that differ. */
  private readonly facts = new WeakMap<object, WeakMap<object, RouteFacts>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly checks: CallChecks,
    private readonly exchange: HttpExchange,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const route = this.routeFacts(context);
    if (route.unguarded) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<ApiRequest>();
    const answer: CallResponse = { headers: {} };
    try {
      await this.checks.check(
        {
          transport: 'rest',
          authorization: this.exchange.headerValues(req, 'authorization'),
          client: req.ip ?? 'unknown',
          requestId: req.id,
          scopes: route.scopes,
          bearerErrorCodes: route.bearerErrorCodes,
          resource: route.resource,
          rateLimitCounted: route.rateLimitCounted,
        },
        answer,
      );
    } finally {
      req.caller = answer.caller;
      this.exchange.setHeaders(http.getResponse<object>(), answer.headers);
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
        unguarded:
          this.reflector.getAllAndOverride(Public, targets) === true ||
          this.reflector.get(ToolRoute, handler) !== undefined,
        scopes: this.reflector.getAllAndOverride(Scopes, targets),
        bearerErrorCodes: this.reflector.getAllAndOverride(BearerErrorCodes, targets) === true,
        resource: this.reflector.getAllAndOverride(OAuthResource, targets),
        rateLimitCounted: this.reflector.getAllAndOverride(CountsOwnRateLimit, targets) === true,
      };
      byHandler.set(handler, facts);
    }
    return facts;
  }
}
