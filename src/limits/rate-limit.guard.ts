import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import type { ApiRequest } from '../auth/authenticated-key';
import { keyRateStorageKey } from './key-limits';
import { rateLimitExceeded } from './rate-limit.headers';

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
    return Promise.resolve((req as unknown as ApiRequest).apiKey?.id ?? '');
  }

  protected override generateKey(_context: ExecutionContext, keyId: string): string {
    // One budget per key across every route (and MCP), not one per route.
    return keyRateStorageKey(keyId);
  }

  protected override throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw rateLimitExceeded(detail.limit, detail.ttl, detail.timeToBlockExpire);
  }
}
