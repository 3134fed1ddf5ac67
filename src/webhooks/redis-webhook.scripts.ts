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
   * KEYS: an endpoint or a delivery, its endpoint's due set, its endpoint's pending set. ARGV: its
   * id, a field and the value it must have ('' for no condition), when due (ms; '-' for never, out
   * of both sets; '' leaves them), fields to set. The record after, or {} when there is none or the
   * condition does not hold.
   */
  tisChangeWebhookRecord: {
    numberOfKeys: 3,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
      if ARGV[2] ~= '' and redis.call('HGET', KEYS[1], ARGV[2]) ~= ARGV[3] then return {} end
      if #ARGV > 4 then redis.call('HSET', KEYS[1], unpack(ARGV, 5)) end
      if ARGV[4] == '-' then
        redis.call('ZREM', KEYS[2], ARGV[1]); redis.call('ZREM', KEYS[3], ARGV[1])
      elseif ARGV[4] ~= '' then
        redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1]); redis.call('ZADD', KEYS[3], 0, ARGV[1])
      end
      return redis.call('HGETALL', KEYS[1])`,
  },
  /**
   * KEYS: a delivery, its endpoint, its endpoint's due set and pending set. ARGV: its id, when due
   * (ms, '-' for never), '1' when an attempt was made, '1' when it succeeded, when (JSON), fields
   * to set. A made attempt ends the endpoint's failing spell or adds to it: the spell after
   * (failing_since, consecutive_failures as JSON), else {}.
   */
  tisRecordWebhookAttempt: {
    numberOfKeys: 4,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
      redis.call('HSET', KEYS[1], unpack(ARGV, 6))
      if ARGV[2] == '-' then
        redis.call('ZREM', KEYS[3], ARGV[1]); redis.call('ZREM', KEYS[4], ARGV[1])
      else
        redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1]); redis.call('ZADD', KEYS[4], 0, ARGV[1])
      end
      if ARGV[3] ~= '1' or redis.call('EXISTS', KEYS[2]) == 0 then return {} end
      local spell = redis.call('HMGET', KEYS[2], 'failing_since', 'consecutive_failures')
      if ARGV[4] == '1' then
        if (spell[1] or 'null') ~= 'null' or (spell[2] or '0') ~= '0' then
          redis.call('HSET', KEYS[2], 'failing_since', 'null', 'consecutive_failures', '0')
        end
      else
        redis.call('HINCRBY', KEYS[2], 'consecutive_failures', 1)
        if (spell[1] or 'null') == 'null' then redis.call('HSET', KEYS[2], 'failing_since', ARGV[5]) end
      end
      return redis.call('HMGET', KEYS[2], 'failing_since', 'consecutive_failures')`,
  },
  /**
   * KEYS: the endpoint, the endpoints, its delivery list, its due set, its pending set, the
   * delivery base. ARGV: its id. Removes it and its deliveries: 1, or 0 when there was no endpoint.
   */
  tisDeleteWebhookEndpoint: {
    numberOfKeys: 6,
    lua: `
      local existed = redis.call('DEL', KEYS[1])
      redis.call('ZREM', KEYS[2], ARGV[1])
      for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
        redis.call('DEL', KEYS[6] .. id)
      end
      redis.call('DEL', KEYS[3], KEYS[4], KEYS[5])
      return existed`,
  },
  /**
   * KEYS: the delivery base, the delivery-list base, the due-set base, the pending-set base, the
   * endpoint base. ARGV: the most pending an endpoint keeps, now (JSON), then per delivery: its id,
   * its endpoint's id, when due (ms, '-' for never), the count n of the field/value strings that
   * follow. A delivery of an endpoint that does not exist is not kept. Past the most, an endpoint's
   * oldest pending fail unsent, counted on it: their ids, types (JSON) and endpoints, flat.
   */
  tisEnqueueWebhookDeliveries: {
    numberOfKeys: 5,
    lua: `
      local most, touched, order, i = tonumber(ARGV[1]), {}, {}, 3
      while ARGV[i] do
        local id, endpoint, n = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 3])
        if redis.call('EXISTS', KEYS[5] .. endpoint) == 1 then
          redis.call('HSET', KEYS[1] .. id, unpack(ARGV, i + 4, i + 3 + n))
          redis.call('ZADD', KEYS[2] .. endpoint, 0, id)
          if ARGV[i + 2] ~= '-' then
            redis.call('ZADD', KEYS[3] .. endpoint, ARGV[i + 2], id)
            redis.call('ZADD', KEYS[4] .. endpoint, 0, id)
          end
          if not touched[endpoint] then touched[endpoint] = true; order[#order + 1] = endpoint end
        end
        i = i + 4 + n
      end
      local failed = {}
      for _, endpoint in ipairs(order) do
        local over = redis.call('ZCARD', KEYS[4] .. endpoint) - most
        if over > 0 then
          for _, id in ipairs(redis.call('ZRANGE', KEYS[4] .. endpoint, 0, over - 1)) do
            redis.call('HSET', KEYS[1] .. id, 'status', '"failed"', 'error', '"backlog"',
              'next_attempt_at', 'null')
            redis.call('ZREM', KEYS[3] .. endpoint, id); redis.call('ZREM', KEYS[4] .. endpoint, id)
            failed[#failed + 1] = id
            failed[#failed + 1] = redis.call('HGET', KEYS[1] .. id, 'type') or 'null'
            failed[#failed + 1] = endpoint
          end
          redis.call('HINCRBY', KEYS[5] .. endpoint, 'backlog_failed', over)
          redis.call('HSET', KEYS[5] .. endpoint, 'backlog_failed_at', ARGV[2])
        end
      end
      return failed`,
  },
  /**
   * KEYS: the endpoints, the endpoint base, the due-set base, the delivery base. ARGV: now, the
   * lease's end (ms), the most in all, an endpoint's share, the failures in a row from which it
   * has one, the endpoint to start after, then per endpoint with attempts under way: its id, how
   * many. The records (HGETALL each) of the deliveries taken round-robin over the endpoints in
   * their claimOrder (webhook.store.ts: fewer under way first, then from the one after), the first
   * due of each in turn, then the second, …, each within its room, in the order taken; each due
   * again at the lease's end.
   */
  tisClaimWebhookDeliveries: {
    numberOfKeys: 4,
    lua: `
      local total, share, failingAfter = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
      local busy = {}
      for i = 7, #ARGV, 2 do busy[ARGV[i]] = tonumber(ARGV[i + 1]) end
      local endpoints, order = redis.call('ZRANGE', KEYS[1], 0, -1), {}
      local first = 1
      for i, id in ipairs(endpoints) do if id == ARGV[6] then first = i + 1 end end
      for k = 0, #endpoints - 1 do
        local id = endpoints[(first - 1 + k) % #endpoints + 1]
        order[#order + 1] = {id = id, busy = busy[id] or 0, turn = k}
      end
      table.sort(order, function(x, y)
        if x.busy ~= y.busy then return x.busy < y.busy end
        return x.turn < y.turn
      end)
      local lists = {}
      for _, endpoint in ipairs(order) do
        local id = endpoint.id
        local failures = tonumber(redis.call('HGET', KEYS[2] .. id, 'consecutive_failures') or '0')
        local room = (failures >= failingAfter and 1 or share) - endpoint.busy
        if room > 0 then
          local due = redis.call('ZRANGEBYSCORE', KEYS[3] .. id, '-inf', ARGV[1], 'LIMIT', 0, room)
          if #due > 0 then lists[#lists + 1] = {KEYS[3] .. id, due} end
        end
      end
      local found, taken, depth = {}, 0, 1
      while taken < total do
        local any = false
        for _, list in ipairs(lists) do
          local id = list[2][depth]
          if id and taken < total then
            any, taken = true, taken + 1
            local record = redis.call('HGETALL', KEYS[4] .. id)
            if #record == 0 then redis.call('ZREM', list[1], id)
            else redis.call('ZADD', list[1], ARGV[2], id); found[#found + 1] = record end
          end
        end
        if not any then break end
        depth = depth + 1
      end
      return found`,
  },
  /**
   * KEYS: the endpoints, the pending-set base. The deliveries pending, every endpoint's.
   */
  tisCountWebhookPending: {
    numberOfKeys: 2,
    lua: `
      local count = 0
      for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
        count = count + redis.call('ZCARD', KEYS[2] .. id)
      end
      return count`,
  },
  /**
   * KEYS: the earlier layout's due set, the delivery base, the due-set base, the pending-set base.
   * ARGV: how many to move. Moves that many of its deliveries into their endpoints' due and
   * pending sets (those still pending): how many are left.
   */
  tisMoveEarlierWebhookDue: {
    numberOfKeys: 4,
    lua: `
      local held = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
      for i = 1, #held, 2 do
        local id, score = held[i], held[i + 1]
        local fields = redis.call('HMGET', KEYS[2] .. id, 'endpoint_id', 'status')
        if fields[1] and fields[2] == '"pending"' then
          local endpoint = string.sub(fields[1], 2, -2)
          redis.call('ZADD', KEYS[3] .. endpoint, score, id)
          redis.call('ZADD', KEYS[4] .. endpoint, 0, id)
        end
        redis.call('ZREM', KEYS[1], id)
      end
      return redis.call('ZCARD', KEYS[1])`,
  },
  /**
   * KEYS: an endpoint's delivery list, the delivery base. ARGV: a time (JSON), where to start
   * (ZRANGEBYLEX), how many to look at. Forgets those stored before then and not pending, oldest
   * first, up to the first stored since (ids follow the time): how many, where to go on.
   */
  tisPurgeWebhookDeliveries: {
    numberOfKeys: 2,
    lua: `
      local ids = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[2], '+', 'LIMIT', 0, ARGV[3])
      local removed = 0
      for _, id in ipairs(ids) do
        local held = redis.call('HMGET', KEYS[2] .. id, 'at', 'status')
        if not held[1] then redis.call('ZREM', KEYS[1], id)
        elseif held[1] >= ARGV[1] then return {removed, ''}
        elseif held[2] ~= '"pending"' then
          redis.call('DEL', KEYS[2] .. id); redis.call('ZREM', KEYS[1], id); removed = removed + 1
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
    tisRecordWebhookAttempt(...keysAndArgs: string[]): Result<(string | null)[], Context>;
    tisDeleteWebhookEndpoint(...keysAndArgs: string[]): Result<number, Context>;
    tisEnqueueWebhookDeliveries(...keysAndArgs: string[]): Result<string[], Context>;
    tisClaimWebhookDeliveries(...keysAndArgs: string[]): Result<string[][], Context>;
    tisCountWebhookPending(...keysAndArgs: string[]): Result<number, Context>;
    tisMoveEarlierWebhookDue(...keysAndArgs: string[]): Result<number, Context>;
    tisPurgeWebhookDeliveries(...keysAndArgs: string[]): Result<[number, string], Context>;
    tisMarkWebhookOnce(...keysAndArgs: string[]): Result<number, Context>;
  }
}
