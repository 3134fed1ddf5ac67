import { plural } from '../kernel/common/text';
import { ApiError } from '../kernel/errors/api-error';

/**
 * Where a key's rate limit stands: the X-RateLimit-* headers of every answer it counted (its rate,
 * the whole calls its bucket holds now, the seconds until the bucket is full again).
 */
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

function windowText(windowMs: number): string {
  return windowMs === 1000 ? 'second' : plural(windowMs / 1000, 'second');
}

/** `Retry after 1 second.`, `Retry after 30 seconds.`: the end of every refusal that says when. */
export function retryAfterText(seconds: number): string {
  return `Retry after ${plural(seconds, 'second')}.`;
}

/**
 * The 429 of a key over its rate limit, the same for REST and MCP: `waitSeconds` until a call fits
 * again (at least 1), `remaining` the calls left (fewer than a batch asked for, or none).
 */
export function rateLimitExceeded(
  limit: number,
  windowMs: number,
  waitSeconds: number,
  remaining = 0,
): ApiError {
  const wait = Math.max(1, waitSeconds);
  return new ApiError(
    429,
    `Rate limit exceeded: ${plural(limit, 'request')} per ${windowText(windowMs)}. ${retryAfterText(wait)}`,
    rateLimitHeaders(limit, remaining, wait),
  );
}
