/** The headers of a limited answer: how long to wait and where the counter stands. */
export function rateLimitHeaders(limit: number, remaining: number, resetSeconds: number) {
  const wait = Math.max(1, Math.ceil(resetSeconds));
  return {
    'Retry-After': wait,
    'X-RateLimit-Limit': limit,
    'X-RateLimit-Remaining': Math.max(0, remaining),
    'X-RateLimit-Reset': wait,
  };
}
