import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { redisCall } from '../store/redis.connection';
import type { ThrottlerStorageRecord } from './memory-throttler.storage';

/**
 * The maintained Redis storage of @nestjs/throttler (one atomic Lua script per hit), so that rate
 * limits and failed-authentication counts are shared by every instance. Extended at one seam: a
 * Redis that cannot be reached is StoreUnavailableError (503), like every other store call.
 * It is given the store's command connection, so it never opens or closes one of its own.
 */
export class RedisThrottlerStorage extends ThrottlerStorageRedisService {
  override increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    return redisCall(super.increment(key, ttl, limit, blockDuration, throttlerName));
  }
}
