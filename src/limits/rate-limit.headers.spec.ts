import { rateLimitExceeded, rateLimitState, retryAfterText } from './rate-limit.headers';

const policy = (rate: number, windowMs: number, burst = rate) => ({ rate, windowMs, burst });

describe('the rate limit texts', () => {
  it('use the singular where it applies', () => {
    expect(rateLimitExceeded(policy(1, 1000), 1).detail).toBe(
      'Rate limit exceeded: 1 request per second. Retry after 1 second.',
    );
    expect(rateLimitExceeded(policy(5, 1000, 15), 1).detail).toBe(
      'Rate limit exceeded: 5 requests per second. Retry after 1 second.',
    );
    expect(rateLimitExceeded(policy(2, 60_000), 42).detail).toBe(
      'Rate limit exceeded: 2 requests per 60 seconds. Retry after 42 seconds.',
    );
    expect(rateLimitExceeded(policy(1, 500), 0).detail).toBe(
      'Rate limit exceeded: 1 request per 0.5 seconds. Retry after 1 second.',
    );
  });

  it('say when to retry', () => {
    expect([retryAfterText(1), retryAfterText(2), retryAfterText(18_180)]).toEqual([
      'Retry after 1 second.',
      'Retry after 2 seconds.',
      'Retry after 18180 seconds.',
    ]);
  });
});

describe('the rate limit headers', () => {
  it("give the bucket's size as the limit and its refill as the policy", () => {
    expect(rateLimitState(policy(1000, 1000, 2000), 1999, 1)).toEqual({
      'X-RateLimit-Limit': 2000,
      'X-RateLimit-Remaining': 1999,
      'X-RateLimit-Reset': 1,
      'X-RateLimit-Policy': '1000;w=1;burst=2000',
    });
  });

  it('state the window in seconds, a fraction of one when it is shorter', () => {
    expect(rateLimitState(policy(2, 60_000), 0, 30)['X-RateLimit-Policy']).toBe('2;w=60;burst=2');
    expect(rateLimitState(policy(1, 500), 0, 1)['X-RateLimit-Policy']).toBe('1;w=0.5;burst=1');
  });

  it('carry the same on a 429, with Retry-After', () => {
    expect(rateLimitExceeded(policy(5, 1000, 15), 1, 0).headers).toEqual({
      'Retry-After': 1,
      'X-RateLimit-Limit': 15,
      'X-RateLimit-Remaining': 0,
      'X-RateLimit-Reset': 1,
      'X-RateLimit-Policy': '5;w=1;burst=15',
    });
  });
});
