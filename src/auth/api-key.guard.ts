import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../errors/api-error';
import { AuthFailureLimiter } from '../limits/auth-failure.limiter';
import { bearerToken } from './api-key';
import { ApiKeysService } from './api-keys.service';
import { BearerErrorCodes, Public } from './auth.decorators';
import type { ApiRequest } from './authenticated-key';

export function notAuthenticated(
  detail: 'Not authenticated' | 'Invalid API key',
  withErrorCode = false,
): ApiError {
  return new ApiError(401, detail, {
    'WWW-Authenticate': withErrorCode ? 'Bearer error="invalid_token"' : 'Bearer',
  });
}

/** Deny by default: every route needs a valid key unless it says @Public(). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeysService,
    private readonly failures: AuthFailureLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride(Public, targets)) return true;
    const req = context.switchToHttp().getRequest<ApiRequest>();
    if ((req.headersDistinct.authorization?.length ?? 0) > 1) {
      // Node keeps the first of several; which one a proxy would pick is anyone's guess.
      await this.failures.recordFailure(req);
      throw new ApiError(400, 'Multiple Authorization headers');
    }
    const token = bearerToken(req.headers.authorization);
    const key = token === undefined ? undefined : await this.keys.authenticate(token);
    if (key) {
      req.apiKey = key;
      return true;
    }
    await this.failures.recordFailure(req);
    throw notAuthenticated(
      token === undefined ? 'Not authenticated' : 'Invalid API key',
      this.reflector.getAllAndOverride(BearerErrorCodes, targets) === true,
    );
  }
}
