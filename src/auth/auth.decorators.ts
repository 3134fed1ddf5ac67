import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Scope } from './scopes';
import type { ApiRequest, AuthenticatedKey } from './authenticated-key';

/** Routes open to everyone: no key needed, no rate limit or quota. Everything else needs a key. */
export const Public = Reflector.createDecorator<boolean>({ transform: () => true });

/** The scopes a route asks for; a key holding any one of them passes. No decorator: any valid key. */
export const Scopes = Reflector.createDecorator<Scope[]>();

/**
 * Routes whose 401 and 403 carry RFC 6750 error codes in `WWW-Authenticate` (`error="invalid_token"`,
 * `error="insufficient_scope", scope="..."`): MCP clients read them; REST keeps a plain `Bearer`.
 */
export const BearerErrorCodes = Reflector.createDecorator<boolean>({ transform: () => true });

/** The key that authenticated the request (only on routes that are not @Public). */
export const CurrentKey = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): AuthenticatedKey | undefined =>
    ctx.switchToHttp().getRequest<ApiRequest>().apiKey,
);
