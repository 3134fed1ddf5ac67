import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import type { ApiRequest } from '../auth/authenticated-key';
import { ApiError } from '../errors/api-error';
import { rateLimitHeaders } from './rate-limit.headers';

function windowText(ttlMs: number): string {
  return ttlMs === 1000 ? 'second' : `${ttlMs / 1000} seconds`;
}

/**
 * The throttler, per API key: it runs after authentication, tracks the key's id, and takes its limit
 * from the key or its plan (see LimitsModule). Open routes are not limited here.
 */
@Injectable()
export class KeyRateLimitGuard extends ThrottlerGuard {
  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return Promise.resolve(true);
    return Promise.resolve(!context.switchToHttp().getRequest<ApiRequest>().apiKey);
  }

  protected override getTracker(req: Record<string, unknown>): Promise<string> {
    return Promise.resolve(`key:${(req as unknown as ApiRequest).apiKey?.id}`);
  }

  protected override generateKey(
    _context: ExecutionContext,
    tracker: string,
    name: string,
  ): string {
    // One budget per key across every route, not one per route.
    return `rate:${name}:${tracker}`;
  }

  protected override throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const wait = Math.max(1, detail.timeToBlockExpire);
    throw new ApiError(
      429,
      `Rate limit exceeded: ${detail.limit} requests per ${windowText(detail.ttl)}. Retry after ${wait} seconds.`,
      rateLimitHeaders(detail.limit, 0, wait),
    );
  }
}
