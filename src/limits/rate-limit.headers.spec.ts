import { rateLimitExceeded, retryAfterText } from './rate-limit.headers';

describe('the rate limit texts', () => {
  it('use the singular where it applies', () => {
    expect(rateLimitExceeded(1, 1000, 1).detail).toBe(
      'Rate limit exceeded: 1 request per second. Retry after 1 second.',
    );
    expect(rateLimitExceeded(5, 1000, 1).detail).toBe(
      'Rate limit exceeded: 5 requests per second. Retry after 1 second.',
    );
    expect(rateLimitExceeded(2, 60_000, 42).detail).toBe(
      'Rate limit exceeded: 2 requests per 60 seconds. Retry after 42 seconds.',
    );
    expect(rateLimitExceeded(1, 500, 0).detail).toBe(
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
