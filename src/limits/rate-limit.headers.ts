import { plural } from '../kernel/common/text';
import { ApiError } from '../kernel/errors/api-error';

/** A rate budget as its headers tell it: `rate` calls a window of `windowMs`, `burst` at most at once. */
export interface RatePolicy {
  rate: number;
  windowMs: number;
  burst: number;
}

/**
 * Where a key's rate limit stands: the X-RateLimit-* headers of every answer it counted. `Limit`
 * is what the bucket holds when full (the burst), so `Remaining` (the whole calls it holds now)
 * never exceeds it; `Reset` the seconds until it is full again; `Policy` how it refills
 * (`<rate>;w=<window in seconds>;burst=<burst>`).
 */
export function rateLimitState(policy: RatePolicy, remaining: number, resetSeconds: number) {
  return {
    'X-RateLimit-Limit': policy.burst,
    'X-RateLimit-Remaining': Math.max(0, remaining),
    'X-RateLimit-Reset': resetSeconds,
    'X-RateLimit-Policy': `${policy.rate};w=${policy.windowMs / 1000};burst=${policy.burst}`,
  };
}

const RATE_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-RateLimit-Policy',
] as const;

/** The X-RateLimit-* of `from` (a refusal's headers), copied into `to`. */
export function rateHeaders(
  from: Record<string, string | number>,
  to: Record<string, string | number>,
): void {
  for (const name of RATE_HEADERS) if (from[name] !== undefined) to[name] = from[name];
}

/** The headers of a limited answer: how long to wait and where the counter stands. */
export function rateLimitHeaders(policy: RatePolicy, remaining: number, resetSeconds: number) {
  const wait = Math.max(1, Math.ceil(resetSeconds));
  return { 'Retry-After': wait, ...rateLimitState(policy, remaining, wait) };
}

function windowText(windowMs: number): string {
  return windowMs === 1000 ? 'second' : plural(windowMs / 1000, 'second');
}

/** `Retry after 1 second.`, `Retry after 30 seconds.`: the end of every refusal that says when. */
export function retryAfterText(seconds: number): string {
  return `Retry after ${plural(seconds, 'second')}.`;
}

/**
 * The 429 of a key over its rate limit, the same for REST and MCP: its text names the rate,
 * `waitSeconds` until a call fits again (at least 1), `remaining` the calls left (fewer than a
 * batch asked for, or none).
 */
export function rateLimitExceeded(
  policy: RatePolicy,
  waitSeconds: number,
  remaining = 0,
): ApiError {
  const wait = Math.max(1, waitSeconds);
  return new ApiError(
    429,
    `Rate limit exceeded: ${plural(policy.rate, 'request')} per ${windowText(policy.windowMs)}. ${retryAfterText(wait)}`,
    rateLimitHeaders(policy, remaining, wait),
  );
}
