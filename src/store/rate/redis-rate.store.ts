import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type Redis from 'ioredis';
import type { Result } from 'ioredis';
import { RedisClient, redisCall } from '../redis/redis.connection';
import type { BudgetStorage, TakeResult, ThrottlerStorageRecord } from './rate.store';

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

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** The library's script. KEYS: hits, blocked. ARGV: throttler, ttl, limit, block duration. */
    tisThrottle(
      hits: string,
      blocked: string,
      ...args: (string | number)[]
    ): Result<[number, number, number, number], Context>;
    /** TAKE_SCRIPT. KEYS: hits, blocked. ARGV: ttl, limit, n. */
    tisTake(
      hits: string,
      blocked: string,
      ...args: (string | number)[]
    ): Result<[number, number, number], Context>;
  }
}

/**
 * Where a budget's two counters live. A storage key that starts with a hash tag (a key's budget,
 * `{key_…}:rate`: src/store/redis.keys.ts) keeps it, so the counters share the key's Cluster slot
 * with its record and quota; any other key (a client address's failed authentications) gets the
 * library's own tag, `{<key>:<throttler>}`. Both counters always share one slot: the scripts touch both.
 */
export function throttlerKeys(key: string, throttlerName: string): [hits: string, blocked: string] {
  const base = /^\{[^{}]+\}/.test(key) ? `${key}:${throttlerName}` : `{${key}:${throttlerName}}`;
  return [`${base}:hits`, `${base}:blocked`];
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
    client.defineCommand('tisTake', { numberOfKeys: 2, lua: TAKE_SCRIPT });
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

  async take(
    key: string,
    ttl: number,
    limit: number,
    n: number,
    throttlerName: string,
  ): Promise<TakeResult> {
    const [taken, totalHits, leftMs] = await redisCall(
      this.client.tisTake(...throttlerKeys(key, throttlerName), ttl, limit, n),
    );
    return {
      taken: taken === 1,
      totalHits,
      retryAfterSeconds: Math.max(1, Math.ceil(leftMs / 1000)),
    };
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
