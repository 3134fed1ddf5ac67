import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { redisCall } from '../store/redis.connection';
import type { BudgetStorage, TakeResult, ThrottlerStorageRecord } from './memory-throttler.storage';

/**
 * `n` hits at once or none, on the keys and in the fixed window of the library's own script (see
 * ThrottlerStorageRedisService): blocked or over the limit, nothing is counted.
 */
const TAKE_SCRIPT = `
local hits = tonumber(redis.call('GET', KEYS[1]) or '0')
local left = redis.call('PTTL', KEYS[1])
local blocked = redis.call('PTTL', KEYS[2])
local ttl = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
if blocked > 0 then return {0, hits, blocked} end
if hits + n > limit then
  if left <= 0 then left = ttl end
  return {0, hits, left}
end
hits = redis.call('INCRBY', KEYS[1], n)
if left <= 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
  left = ttl
end
return {1, hits, left}
`;

/**
 * The maintained Redis storage of @nestjs/throttler (one atomic Lua script per hit), so that rate
 * limits and failed-authentication counts are shared by every instance. Extended at one seam: a
 * Redis that cannot be reached is StoreUnavailableError (503), like every other store call.
 * It is given the store's command connection, so it never opens or closes one of its own.
 */
export class RedisThrottlerStorage extends ThrottlerStorageRedisService implements BudgetStorage {
  override increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    return redisCall(super.increment(key, ttl, limit, blockDuration, throttlerName));
  }

  async take(
    key: string,
    ttl: number,
    limit: number,
    n: number,
    throttlerName: string,
  ): Promise<TakeResult> {
    const [taken, totalHits, leftMs] = (await redisCall(
      this.redis.eval(
        TAKE_SCRIPT,
        2,
        `{${key}:${throttlerName}}:hits`,
        `{${key}:${throttlerName}}:blocked`,
        ttl,
        limit,
        n,
      ),
    )) as [number, number, number];
    return {
      taken: taken === 1,
      totalHits,
      retryAfterSeconds: Math.max(1, Math.ceil(leftMs / 1000)),
    };
  }
}
