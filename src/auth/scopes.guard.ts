import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../errors/api-error';
import { BearerErrorCodes, Scopes } from './auth.decorators';
import type { ApiRequest } from './authenticated-key';
import { hasAnyScope } from './scopes';

export const INSUFFICIENT_PERMISSIONS = 'Insufficient permissions for this operation.';

/** Runs after ApiKeyGuard: the key must hold one of the scopes the route names with @Scopes(). */
@Injectable()
export class ScopesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    const wanted = this.reflector.getAllAndOverride(Scopes, targets);
    const key = context.switchToHttp().getRequest<ApiRequest>().apiKey;
    if (!wanted || !key || hasAnyScope(key.scopes, wanted)) return true;
    const challenge = this.reflector.getAllAndOverride(BearerErrorCodes, targets)
      ? { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${wanted.join(' ')}"` }
      : undefined;
    throw new ApiError(403, INSUFFICIENT_PERMISSIONS, challenge);
  }
}
