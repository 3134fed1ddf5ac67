import { Reflector } from '@nestjs/core';
import type { ResourceName } from './protected-resource';
import { WantedScope } from './scopes';

/** Routes open to everyone: no key needed, no rate limit or quota. Everything else needs a key. */
export const Public = Reflector.createDecorator<boolean>({ transform: () => true });

/** The scopes a route asks for; a key holding any one of them passes. No decorator: any valid key. */
export const Scopes = Reflector.createDecorator<WantedScope[]>();

/**
 * Routes whose 401 carries RFC 6750's error code in `WWW-Authenticate` (`error="invalid_token"`)
 * without OAuth too: MCP clients read it; REST keeps a plain `Bearer`. (Every 403 for a missing
 * scope carries `error="insufficient_scope", scope="..."`, on every route.)
 */
export const BearerErrorCodes = Reflector.createDecorator<boolean>({ transform: () => true });

/**
 * The OAuth protected resource a route belongs to (src/auth/protected-resource.ts): `mcp` for
 * /mcp; every other route is the API's. An access token is good only on the resource it names.
 */
export const OAuthResource = Reflector.createDecorator<ResourceName>();
