import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { originOf } from '../settings/settings';
import { pathOf } from './body';

/** `app.enableCors()`'s argument: options, or a function of the request giving them. */
type CorsSetting = NonNullable<Parameters<INestApplication['enableCors']>[0]>;
export type CorsOptions = Exclude<CorsSetting, (...args: never[]) => unknown>;
export type CorsDelegate = (
  req: IncomingMessage,
  callback: (error: Error | null, options: CorsOptions) => void,
) => void;

/** What a browser may send and read, as the contract names it. */
const CORS: CorsOptions = {
  methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
  allowedHeaders: [
    'Authorization',
    'Content-Type',
    'Idempotency-Key',
    'X-Request-Id',
    'Mcp-Method',
    'Mcp-Name',
    'MCP-Protocol-Version',
    'Prefer',
  ],
  exposedHeaders: [
    'Retry-After',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    'X-RateLimit-Policy',
    'X-Quota-Limit',
    'X-Quota-Used',
    'X-Quota-Remaining',
    'X-Quota-Cost',
    'X-Quota-Monthly-Limit',
    'X-Quota-Monthly-Used',
    'X-Quota-Monthly-Remaining',
    'X-Run-Budget-Remaining',
    'X-Request-Id',
    // A browser's OAuth client reads the 401's challenge to find the resource's metadata.
    'WWW-Authenticate',
    'Location',
    'Link',
    'Idempotent-Replayed',
  ],
  maxAge: 600,
  optionsSuccessStatus: 204,
};

/**
 * CORS for browser clients, per request: an origin the operator listed (CORS_ORIGINS; on `routeOf`
 * the extra origins too, e.g. /mcp's MCP_ALLOWED_ORIGINS) gets the `Access-Control-*` headers and
 * its preflight a 204; any other origin gets none, and its preflight goes on to routing (405).
 */
export function corsFor(
  origins: readonly string[],
  extra?: { matches: (path: string) => boolean; origins: readonly string[] },
): CorsDelegate {
  return (req, callback) => {
    const path = pathOf(req.url);
    const allowed = new Set(extra?.matches(path) ? [...origins, ...extra.origins] : origins);
    const header = req.headers.origin;
    const origin = header === undefined ? undefined : originOf(header);
    const listed = origin !== undefined && (allowed.has('*') || allowed.has(origin));
    callback(null, { ...CORS, origin: listed ? header : false });
  };
}
