import type { Result } from 'ioredis';
import type { RedisScript } from '../kernel/store/redis/redis.database';

/**
 * Lua: `forgetExpired(KEYS, now, max)` forgets up to `max` of a key's idempotency entries that
 * expired by `now` (ms), and the bytes they counted. KEYS: entries, expiry times, bytes.
 */
const FORGET_IDEMPOTENT_LUA = `
local function forgetExpired(KEYS, now, max)
  local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, max)
  for _, scope in ipairs(gone) do
    local e = redis.call('HGET', KEYS[1], scope)
    if e then redis.call('DECRBY', KEYS[3], cjson.decode(e)['n'] or 0) end
    redis.call('HDEL', KEYS[1], scope)
    redis.call('ZREM', KEYS[2], scope)
  end
  return #gone
end`;

export const IDEMPOTENCY_SCRIPTS = {
  /**
   * KEYS: the key's entries (hash scope -> JSON {f: fingerprint, t: token, s: status, b: body,
   * n: bytes}), their expiry times (sorted set), the bytes they count (string).
   * ARGV: scope, fingerprint, token, now (ms), marker expiry (ms), entry cap, byte cap, the
   * marker's bytes. Returns {state, status, body}, or {'full', the oldest entry's expiry}.
   */
  tisBeginIdempotent: {
    numberOfKeys: 3,
    lua: `${FORGET_IDEMPOTENT_LUA}
      forgetExpired(KEYS, ARGV[4], 1000)
      local found = redis.call('HGET', KEYS[1], ARGV[1])
      if found then
        local e = cjson.decode(found)
        if e['f'] ~= ARGV[2] then return {'mismatch'} end
        if not e['s'] then return {'in_progress'} end
        return {'done', tostring(e['s']), e['b']}
      end
      local entries = redis.call('HLEN', KEYS[1])
      local bytes = tonumber(redis.call('GET', KEYS[3]) or '0')
      if entries > 0 and (entries >= tonumber(ARGV[6]) or bytes >= tonumber(ARGV[7])) then
        local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
        return {'full', oldest[2] or ARGV[4]}
      end
      redis.call('HSET', KEYS[1], ARGV[1], cjson.encode({f = ARGV[2], t = ARGV[3], n = tonumber(ARGV[8])}))
      redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
      redis.call('INCRBY', KEYS[3], ARGV[8])
      if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) - tonumber(ARGV[4]) then
        for i = 1, 3 do redis.call('PEXPIREAT', KEYS[i], ARGV[5]) end
      end
      return {'started'}`,
  },
  /**
   * KEYS: as above. ARGV: scope, token, status ('' to release), body, kept until (ms), the
   * answer's bytes. Only the run that holds the marker completes or releases it.
   */
  tisEndIdempotent: {
    numberOfKeys: 3,
    lua: `
      local found = redis.call('HGET', KEYS[1], ARGV[1])
      if not found then return 0 end
      local e = cjson.decode(found)
      if e['t'] ~= ARGV[2] or e['s'] then return 0 end
      if ARGV[3] == '' then
        redis.call('HDEL', KEYS[1], ARGV[1])
        redis.call('ZREM', KEYS[2], ARGV[1])
        redis.call('DECRBY', KEYS[3], e['n'] or 0)
        return 1
      end
      e['s'] = tonumber(ARGV[3])
      e['b'] = ARGV[4]
      e['n'] = (e['n'] or 0) + tonumber(ARGV[6])
      redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(e))
      redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
      redis.call('INCRBY', KEYS[3], ARGV[6])
      -- Kept 24 h from now: no entry of the key lives longer, so the whole key may expire then.
      for i = 1, 3 do redis.call('PEXPIREAT', KEYS[i], ARGV[5]) end
      return 1`,
  },
  /**
   * KEYS: as above. ARGV: now (ms), entry cap, byte cap. Whether the key is full: -1 when it has
   * room, else when its oldest entry expires; its expired entries are forgotten first only when it
   * looks full (a key with room writes nothing).
   */
  tisIdempotencyFullUntil: {
    numberOfKeys: 3,
    lua: `${FORGET_IDEMPOTENT_LUA}
      local function full()
        local entries = redis.call('HLEN', KEYS[1])
        local bytes = tonumber(redis.call('GET', KEYS[3]) or '0')
        return entries > 0 and (entries >= tonumber(ARGV[2]) or bytes >= tonumber(ARGV[3]))
      end
      if not full() then return -1 end
      forgetExpired(KEYS, ARGV[1], 1000)
      if not full() then return -1 end
      return tonumber(redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2] or ARGV[1])`,
  },
  /**
   * KEYS: as above. ARGV: scope, bytes, kept until (ms). An entry of that size with no answer to
   * replay (a long-running call's result), unless the scope has one.
   */
  tisKeepSize: {
    numberOfKeys: 3,
    lua: `
      if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
      redis.call('HSET', KEYS[1], ARGV[1], cjson.encode({s = 200, b = 'null', n = tonumber(ARGV[2])}))
      redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
      redis.call('INCRBY', KEYS[3], ARGV[2])
      for i = 1, 3 do redis.call('PEXPIREAT', KEYS[i], ARGV[3]) end
      return 1`,
  },
  /** KEYS: as above. ARGV: scope. Forgets its entry while it is a marker or a kept 202. */
  tisForgetAccepted: {
    numberOfKeys: 3,
    lua: `
      local found = redis.call('HGET', KEYS[1], ARGV[1])
      if not found then return 0 end
      local e = cjson.decode(found)
      if e['s'] and e['s'] ~= 202 then return 0 end
      redis.call('HDEL', KEYS[1], ARGV[1])
      redis.call('ZREM', KEYS[2], ARGV[1])
      redis.call('DECRBY', KEYS[3], e['n'] or 0)
      return 1`,
  },
  /**
   * KEYS: as above. ARGV: now (ms), at most how many to forget. Forgets expired entries; returns
   * how many, and the three keys go when no entry is left.
   */
  tisPurgeIdempotent: {
    numberOfKeys: 3,
    lua: `${FORGET_IDEMPOTENT_LUA}
      local forgotten = forgetExpired(KEYS, ARGV[1], tonumber(ARGV[2]))
      if redis.call('HLEN', KEYS[1]) == 0 then redis.call('DEL', KEYS[1], KEYS[2], KEYS[3]) end
      return forgotten`,
  },
} as const satisfies Record<string, RedisScript>;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    tisBeginIdempotent(
      entries: string,
      expiry: string,
      bytes: string,
      ...args: string[]
    ): Result<string[], Context>;
    tisEndIdempotent(
      entries: string,
      expiry: string,
      bytes: string,
      ...args: string[]
    ): Result<number, Context>;
    tisPurgeIdempotent(
      entries: string,
      expiry: string,
      bytes: string,
      ...args: string[]
    ): Result<number, Context>;
    tisIdempotencyFullUntil(
      entries: string,
      expiry: string,
      bytes: string,
      ...args: string[]
    ): Result<number, Context>;
    tisKeepSize(
      entries: string,
      expiry: string,
      bytes: string,
      ...args: string[]
    ): Result<number, Context>;
    tisForgetAccepted(
      entries: string,
      expiry: string,
      bytes: string,
      ...args: string[]
    ): Result<number, Context>;
  }
}
