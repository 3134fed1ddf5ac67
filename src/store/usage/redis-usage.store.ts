import type { Result } from 'ioredis';
import { redisCall } from '../redis/redis.connection';
import type { RedisDatabase } from '../redis/redis.database';
import { RedisKeys } from '../redis/redis.keys';
import { QuotaResult, USAGE_KEEP_DAYS, UsageStore } from './usage.store';

/**
 * A day's counter lives 91 days from its first call, so the 90 days of the usage history can be
 * read, and Redis forgets it by itself afterwards.
 */
export const QUOTA_KEEP_SECONDS = (USAGE_KEEP_DAYS + 1) * 86_400;

/**
 * Lua: `consumeQuota(counter, limit, keep)` counts one call on a day's counter unless `limit`
 * (-1: none) calls are already counted, and keeps the counter `keep` seconds from its first call.
 * Returns {counted 1|0, used}. Shared by `tisConsumeQuota` and the call counter's script.
 */
export const CONSUME_QUOTA_LUA = `
local function consumeQuota(counter, limit, keep)
  local used = tonumber(redis.call('GET', counter) or '0')
  limit = tonumber(limit)
  if limit >= 0 and used >= limit then return {0, used} end
  used = redis.call('INCR', counter)
  if redis.call('TTL', counter) < 0 then redis.call('EXPIRE', counter, keep) end
  return {1, used}
end`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** KEYS: the day's counter. ARGV: limit (-1: none), seconds to keep the counter. */
    tisConsumeQuota(
      counter: string,
      limit: string,
      keepSeconds: string,
    ): Result<[number, number], Context>;
  }
}

/** Usage counters in Redis: one string per key and day, under the key's hash tag. */
export class RedisUsageStore extends UsageStore {
  constructor(private readonly redis: RedisDatabase) {
    super();
    redis.define({
      tisConsumeQuota: {
        numberOfKeys: 1,
        lua: `${CONSUME_QUOTA_LUA}
      return consumeQuota(KEYS[1], ARGV[1], ARGV[2])`,
      },
    });
  }

  async consumeQuota(keyId: string, day: string, limit: number | null): Promise<QuotaResult> {
    const [counted, used] = await redisCall(
      this.redis.client.tisConsumeQuota(
        RedisKeys.quota(keyId, day),
        String(limit ?? -1),
        String(QUOTA_KEEP_SECONDS),
      ),
    );
    return { allowed: counted === 1, used };
  }

  async getUsage(keyId: string, day: string): Promise<number> {
    return Number((await redisCall(this.redis.client.get(RedisKeys.quota(keyId, day)))) ?? 0);
  }

  /** One MGET: a key's days share its slot. */
  async getUsageDays(keyId: string, days: string[]): Promise<number[]> {
    if (!days.length) return [];
    const counts = await redisCall(
      this.redis.client.mget(days.map((day) => RedisKeys.quota(keyId, day))),
    );
    return counts.map((count) => Number(count ?? 0));
  }
}
