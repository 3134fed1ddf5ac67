import { plural } from '../common/text';
import { ApiError } from '../errors/api-error';

/** Where a key's counter stands: the X-RateLimit-* headers of every answer it counted. */
export function rateLimitState(limit: number, remaining: number, resetSeconds: number) {
  return {
    'X-RateLimit-Limit': limit,
    'X-RateLimit-Remaining': Math.max(0, remaining),
    'X-RateLimit-Reset': resetSeconds,
  };
}

const RATE_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

/** The X-RateLimit-* of `from` (a refusal's headers), copied into `to`. */
export function rateHeaders(
  from: Record<string, string | number>,
  to: Record<string, string | number>,
): void {
  for (const name of RATE_HEADERS) if (from[name] !== undefined) to[name] = from[name];
}

/** The headers of a limited answer: how long to wait and where the counter stands. */
export function rateLimitHeaders(limit: number, remaining: number, resetSeconds: number) {
  const wait = Math.max(1, Math.ceil(resetSeconds));
  return { 'Retry-After': wait, ...rateLimitState(limit, remaining, wait) };
}

function windowText(ttlMs: number): string {
  return ttlMs === 1000 ? 'second' : plural(ttlMs / 1000, 'second');
}

/** `Retry after 1 second.`, `Retry after 30 seconds.`: the end of every refusal that says when. */
export function retryAfterText(seconds: number): string {
  return `Retry after ${plural(seconds, 'second')}.`;
}

/** The 429 of a key over its budget for the window, the same for REST and MCP. */
export function rateLimitExceeded(limit: number, ttlMs: number, blockedSeconds: number): ApiError {
  const wait = Math.max(1, blockedSeconds);
  return new ApiError(
    429,
    `Rate limit exceeded: ${plural(limit, 'request')} per ${windowText(ttlMs)}. ${retryAfterText(wait)}`,
    rateLimitHeaders(limit, 0, wait),
  );
}
