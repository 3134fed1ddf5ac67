import type { Result } from 'ioredis';
import type { RedisScript } from '../kernel/store/redis/redis.database';

/**
 * KEYS are prefixed by the client's keyPrefix; ARGV are not. A key-name base passed as a key
 * (`{webhooks}:dlv:`, `{webhooks}:of:`) is completed in the script by an id: every key a script
 * touches has the hash tag `{webhooks}`, one Cluster slot.
 */
export const WEBHOOK_SCRIPTS = {
  /** KEYS: the endpoint, the endpoints. ARGV: the most, its created_at (ms), its id, its fields. */
  tisCreateWebhookEndpoint: {
    numberOfKeys: 2,
    lua: `
      if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[1]) then return 0 end
      if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('ERR id taken') end
      redis.call('HSET', KEYS[1], unpack(ARGV, 4))
      redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
      return 1`,
  },
  /**
   * KEYS: an endpoint or a delivery, the due set. ARGV: its id, a field and the value it must have
   * ('' for no condition), when due (ms; '-' for never; '' leaves it), fields to set. The record
   * after, or {} when there is none or the condition does not hold.
   */
  tisChangeWebhookRecord: {
    numberOfKeys: 2,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
      if ARGV[2] ~= '' and redis.call('HGET', KEYS[1], ARGV[2]) ~= ARGV[3] then return {} end
      if #ARGV > 4 then redis.call('HSET', KEYS[1], unpack(ARGV, 5)) end
      if ARGV[4] == '-' then redis.call('ZREM', KEYS[2], ARGV[1])
      elseif ARGV[4] ~= '' then redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1]) end
      return redis.call('HGETALL', KEYS[1])`,
  },
  /**
   * KEYS: the endpoint, the endpoints, its delivery list, the due set, the delivery base. ARGV: its
   * id. Removes it and its deliveries: 1, or 0 when there was no endpoint.
   */
  tisDeleteWebhookEndpoint: {
    numberOfKeys: 5,
    lua: `
      local existed = redis.call('DEL', KEYS[1])
      redis.call('ZREM', KEYS[2], ARGV[1])
      for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
        redis.call('DEL', KEYS[5] .. id); redis.call('ZREM', KEYS[4], id)
      end
      redis.call('DEL', KEYS[3])
      return existed`,
  },
  /**
   * KEYS: the due set, the delivery base, the delivery-list base. ARGV, per delivery: its id, its
   * endpoint's id, when due (ms, '-' for never), the count n of the field/value strings that follow.
   */
  tisEnqueueWebhookDeliveries: {
    numberOfKeys: 3,
    lua: `
      local i = 1
      while ARGV[i] do
        local id, n = ARGV[i], tonumber(ARGV[i + 3])
        redis.call('HSET', KEYS[2] .. id, unpack(ARGV, i + 4, i + 3 + n))
        redis.call('ZADD', KEYS[3] .. ARGV[i + 1], 0, id)
        if ARGV[i + 2] ~= '-' then redis.call('ZADD', KEYS[1], ARGV[i + 2], id) end
        i = i + 4 + n
      end
      return 0`,
  },
  /**
   * KEYS: the due set, the delivery base. ARGV: now, the lease's end (ms), the most. The records
   * (HGETALL each) of the deliveries due at now, earliest first, each due again at the lease's end.
   */
  tisClaimWebhookDeliveries: {
    numberOfKeys: 2,
    lua: `
      local found = {}
      for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])) do
        local record = redis.call('HGETALL', KEYS[2] .. id)
        if #record == 0 then redis.call('ZREM', KEYS[1], id)
        else redis.call('ZADD', KEYS[1], ARGV[2], id); found[#found + 1] = record end
      end
      return found`,
  },
  /**
   * KEYS: an endpoint's delivery list, the due set, the delivery base. ARGV: a time (JSON), where to
   * start (ZRANGEBYLEX), how many to look at. Forgets those stored before then and not pending,
   * oldest first, up to the first stored since (ids follow the time): how many, where to go on.
   */
  tisPurgeWebhookDeliveries: {
    numberOfKeys: 3,
    lua: `
      local ids = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[2], '+', 'LIMIT', 0, ARGV[3])
      local removed = 0
      for _, id in ipairs(ids) do
        local held = redis.call('HMGET', KEYS[3] .. id, 'at', 'status')
        if not held[1] then redis.call('ZREM', KEYS[1], id)
        elseif held[1] >= ARGV[1] then return {removed, ''}
        elseif held[2] ~= '"pending"' then
          redis.call('DEL', KEYS[3] .. id); redis.call('ZREM', KEYS[1], id)
          redis.call('ZREM', KEYS[2], id); removed = removed + 1
        end
      end
      if #ids < tonumber(ARGV[3]) then return {removed, ''} end
      return {removed, '(' .. ids[#ids]}`,
  },
  /**
   * KEYS: the marker. ARGV: now (ms, the service's clock), its expiry, MARK_KEPT_MS. Set to its
   * expiry (1) unless it holds one after now (0). Its TTL (Redis's clock) is housekeeping only.
   */
  tisMarkWebhookOnce: {
    numberOfKeys: 1,
    lua: `
      local held = redis.call('GET', KEYS[1])
      if held and tonumber(held) > tonumber(ARGV[1]) then return 0 end
      local time = redis.call('TIME')
      if tonumber(ARGV[2]) > tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) then
        redis.call('SET', KEYS[1], ARGV[2], 'PXAT', ARGV[2])
      else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
      return 1`,
  },
} as const satisfies Record<string, RedisScript>;

declare module 'ioredis' {
  /** KEYS, then ARGV, as each script's comment in WEBHOOK_SCRIPTS says. */
  interface RedisCommander<Context> {
    tisCreateWebhookEndpoint(...keysAndArgs: string[]): Result<number, Context>;
    tisChangeWebhookRecord(...keysAndArgs: string[]): Result<string[], Context>;
    tisDeleteWebhookEndpoint(...keysAndArgs: string[]): Result<number, Context>;
    tisEnqueueWebhookDeliveries(...keysAndArgs: string[]): Result<number, Context>;
    tisClaimWebhookDeliveries(...keysAndArgs: string[]): Result<string[][], Context>;
    tisPurgeWebhookDeliveries(...keysAndArgs: string[]): Result<[number, string], Context>;
    tisMarkWebhookOnce(...keysAndArgs: string[]): Result<number, Context>;
  }
}
