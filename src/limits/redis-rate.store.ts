import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type Redis from 'ioredis';
import type { Result } from 'ioredis';
import { RedisClient, redisCall } from '../kernel/store/redis/redis.connection';
import type { BucketDraw, BudgetStorage, RateBudget, ThrottlerStorageRecord } from './rate.store';

/**
 * A key's token bucket, drawn in one step: the arithmetic of drawFromBucket (token-bucket.ts),
 * line for line, in whole numbers (a call is `window` parts, the bucket gains `rate` parts a
 * millisecond and holds `burst * window`), so counts are exact on any number of instances. Its
 * times are the callers' clock (`now`), as the quota's days are. The bucket is a hash {parts, at};
 * a missing one is full. It is kept a minute past the time it would be full again: its expiry is
 * Redis's clock, and a caller's clock behind Redis's must not find it gone before it refilled. A
 * refused draw writes nothing (the refill is the same computed later).
 * Returns {taken 1|0, whole calls left, ms until one call, ms until full}.
 */
export const BUCKET_LUA = `
local function drawBucket(key, now, window, rate, burst, calls)
  local full = burst * window
  local level = redis.call('HMGET', key, 'parts', 'at')
  local parts = tonumber(level[1]) or full
  local at = tonumber(level[2]) or now
  local restart = at - now > window
  if now > at or restart then
    parts = math.min(full, parts + math.max(0, now - at) * rate)
    at = now
  end
  local taken = 0
  if parts >= calls * window then
    parts = parts - calls * window
    taken = 1
  end
  local function untilParts(target)
    if parts >= target then return 0 end
    if rate > 0 then return math.ceil((target - parts) / rate) end
    return window
  end
  local untilFull = untilParts(full)
  if taken == 1 or restart then
    if untilFull > 0 then
      redis.call('HSET', key, 'parts', parts, 'at', at)
      redis.call('PEXPIRE', key, untilFull + 60000)
    else
      redis.call('DEL', key)
    end
  end
  return {taken, math.floor(parts / window), untilParts(window), untilFull}
end
`;

/** The arguments of drawBucket after its key, as ARGV strings. */
export function bucketArguments(budget: RateBudget, calls: number, nowMs: number) {
  return [nowMs, budget.windowMs, budget.rate, budget.burst, calls];
}

/** drawBucket's reply as the storage answers it. */
export function bucketDraw([taken, remaining, untilOneMs, untilFullMs]: number[]): BucketDraw {
  return { taken: taken === 1, remaining, untilOneMs, untilFullMs };
}

const DRAW_SCRIPT = `${BUCKET_LUA}
return drawBucket(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]),
  tonumber(ARGV[4]), tonumber(ARGV[5]))
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** The library's script. KEYS: hits, blocked. ARGV: throttler, ttl, limit, block duration. */
    tisThrottle(
      hits: string,
      blocked: string,
      ...args: (string | number)[]
    ): Result<[number, number, number, number], Context>;
    /** DRAW_SCRIPT. KEYS: the bucket. ARGV: bucketArguments. */
    tisDrawBucket(bucket: string, ...args: (string | number)[]): Result<number[], Context>;
  }
}

/**
 * Where a throttler's two counters live (failed authentications per address): under the
 * library's own tag, `{<key>:<throttler>}`, so both share one slot (its script touches both).
 */
export function throttlerKeys(key: string, throttlerName: string): [hits: string, blocked: string] {
  const base = `{${key}:${throttlerName}}`;
  return [`${base}:hits`, `${base}:blocked`];
}

/**
 * Where a key's bucket lives: after its storage key, `{key_…}:rate` (src/kernel/store/redis/redis.keys.ts),
 * whose hash tag puts it in the key's Cluster slot with its record and quota.
 */
export function bucketKey({ storageKey, throttler }: RateBudget): string {
  return `${storageKey}:${throttler}:bucket`;
}

/**
 * The maintained Redis storage of @nestjs/throttler (one atomic Lua script per hit), so that rate
 * limits and failed-authentication counts are shared by every instance, on one Redis, under
 * Sentinel or on a Cluster. Extended where it needs to be: the counters' keys follow the service's
 * key layout (the library has no seam for key names, so `increment` is its own, on the library's
 * script, sent as EVALSHA), and a Redis that cannot be reached is StoreUnavailableError (503), like
 * every other store call. It is given the store's command connection, so it never opens or closes
 * one of its own.
 */
export class RedisRateStore extends ThrottlerStorageRedisService implements BudgetStorage {
  private readonly client: RedisClient;

  constructor(client: RedisClient) {
    // The library takes a Redis or a Cluster alike; its typings name them in separate overloads.
    super(client as Redis);
    this.client = client;
    client.defineCommand('tisThrottle', { numberOfKeys: 2, lua: this.scriptSrc });
    client.defineCommand('tisDrawBucket', { numberOfKeys: 1, lua: DRAW_SCRIPT });
  }

  override async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    return throttled(
      await redisCall(
        this.client.tisThrottle(
          ...throttlerKeys(key, throttlerName),
          throttlerName,
          ttl,
          limit,
          blockDuration,
        ),
      ),
    );
  }

  async draw(budget: RateBudget, calls: number, nowMs: number): Promise<BucketDraw> {
    return bucketDraw(
      await redisCall(
        this.client.tisDrawBucket(bucketKey(budget), ...bucketArguments(budget, calls, nowMs)),
      ),
    );
  }
}

/** The library script's reply as its storage answers it (times in whole seconds). */
export function throttled([totalHits, timeToExpire, isBlocked, timeToBlockExpire]: number[]) {
  return {
    totalHits,
    timeToExpire: Math.ceil(timeToExpire / 1000),
    isBlocked: isBlocked === 1,
    timeToBlockExpire: Math.ceil(timeToBlockExpire / 1000),
  };
}
