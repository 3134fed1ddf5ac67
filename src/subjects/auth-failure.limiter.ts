import { Inject, Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { ApiError } from '../kernel/errors/api-error';
import { Settings, SETTINGS } from '../kernel/settings/settings';
import { rateLimitHeaders, retryAfterText } from '../limits';

/**
 * Failed authentications per client address, in the throttler's storage (shared across instances
 * with Redis). Past the operator's limit the client gets 429 instead of 401, so guessing keys is slow.
 */
@Injectable()
export class AuthFailureLimiter {
  constructor(
    @Inject(ThrottlerStorage) private readonly storage: ThrottlerStorage,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  /** Counts one failed authentication of a client (its address); 429 once it has failed too often. */
  async recordFailure(client: string): Promise<void> {
    const limit = this.settings.authFailureLimit;
    const windowMs = this.settings.authFailureWindowSeconds * 1000;
    const hit = await this.storage.increment(
      `auth-failure:${client}`,
      windowMs,
      limit,
      windowMs,
      'auth-failure',
    );
    if (hit.isBlocked) {
      throw new ApiError(
        429,
        `Too many failed authentication attempts from this address. ${retryAfterText(Math.max(1, hit.timeToBlockExpire))}`,
        // A fixed window: `limit` failures a window, all of them at once if they come so.
        rateLimitHeaders({ rate: limit, windowMs, burst: limit }, 0, hit.timeToBlockExpire),
      );
    }
  }
}
