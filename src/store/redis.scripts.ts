import type { Result } from 'ioredis';

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

/**
 * Lua scripts: each runs atomically on the Redis server, so several instances never interleave
 * inside one of them. KEYS are prefixed by the client's keyPrefix; ARGV are not. Every script's
 * KEYS share one hash tag (see redis.keys.ts), so each runs on one Cluster slot.
 */
export const SCRIPTS = {
  /**
   * KEYS: the key index, the initial-key lock. ARGV: the key id, how long the lock holds (ms).
   * The first start against an empty store creates the admin key: one instance wins the lock
   * (SET NX), and only while no key exists. The lock expires, so a winner that died before writing
   * its key does not keep every later start from creating one.
   */
  tisClaimInitialKey: {
    numberOfKeys: 2,
    lua: `
      if redis.call('ZCARD', KEYS[1]) > 0 then return 0 end
      if not redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
      return 1`,
  },
  /**
   * KEYS: the key's record. ARGV: field/value pairs. Never overwrites a record. Every script that
   * changes a record raises its `revision` (the call counter compares it with a kept copy's).
   */
  tisInsertRecord: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 1 then
        return redis.error_reply('ERR an API key with this id already exists')
      end
      redis.call('HSET', KEYS[1], unpack(ARGV))
      redis.call('HINCRBY', KEYS[1], 'revision', 1)
      return 1`,
  },
  /** KEYS: the key's record. ARGV: time. The first revocation time is kept. */
  tisRevokeKey: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
      if redis.call('HSETNX', KEYS[1], 'revoked_at', ARGV[1]) == 1 then
        redis.call('HINCRBY', KEYS[1], 'revision', 1)
      end
      return 1`,
  },
  /** KEYS: the key's record. ARGV: time. Never creates a record for an unknown id. */
  tisTouchKey: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'last_used_at', ARGV[1]) end
      return 0`,
  },
  /** KEYS: overrides hash. ARGV: channel, origin, field, JSON value (absent: delete). Write and announce as one. */
  tisWriteOverride: {
    numberOfKeys: 1,
    lua: `
      if ARGV[4] then redis.call('HSET', KEYS[1], ARGV[3], ARGV[4]) else redis.call('HDEL', KEYS[1], ARGV[3]) end
      redis.call('PUBLISH', ARGV[1], ARGV[2])
      return 1`,
  },
  /**
   * KEYS: the day's counter. ARGV: limit (-1: none), seconds to keep the counter.
   * Increments only while below the limit; returns {counted 1|0, used}.
   */
  tisConsumeQuota: {
    numberOfKeys: 1,
    lua: `${CONSUME_QUOTA_LUA}
      return consumeQuota(KEYS[1], ARGV[1], ARGV[2])`,
  },
  /**
   * KEYS: the key's record. ARGV: field/value pairs to set, then '--', then fields to delete.
   * Never creates a record for an unknown id.
   */
  tisUpdateKey: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
      local i = 1
      while ARGV[i] ~= '--' do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]); i = i + 2 end
      i = i + 1
      while ARGV[i] do redis.call('HDEL', KEYS[1], ARGV[i]); i = i + 1 end
      redis.call('HINCRBY', KEYS[1], 'revision', 1)
      return 1`,
  },
  /**
   * KEYS: the key's record. ARGV: new hash, new prefix, previous hash to keep ('' for none), its
   * expiry. Returns the hashes the key no longer accepts (their lookups go next), nil for no record.
   */
  tisRotateKey: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return false end
      local current = redis.call('HGET', KEYS[1], 'hash')
      local older = redis.call('HGET', KEYS[1], 'previous_hash')
      local dropped = {}
      if older and older ~= ARGV[3] then table.insert(dropped, older) end
      if current and current ~= ARGV[3] then table.insert(dropped, current) end
      redis.call('HSET', KEYS[1], 'hash', ARGV[1], 'prefix', ARGV[2])
      if ARGV[3] == '' then
        redis.call('HDEL', KEYS[1], 'previous_hash', 'previous_key_expires_at')
      else
        redis.call('HSET', KEYS[1], 'previous_hash', ARGV[3], 'previous_key_expires_at', ARGV[4])
      end
      redis.call('HINCRBY', KEYS[1], 'revision', 1)
      return dropped`,
  },
  /**
   * KEYS: the entry counter, the log (sorted set, score = id). ARGV: the entry as JSON without
   * its id, the oldest time kept (ISO). Returns the new id; forgets up to 100 old entries a call.
   */
  tisAppendAudit: {
    numberOfKeys: 2,
    lua: `
      local id = redis.call('INCR', KEYS[1])
      local entry = cjson.decode(ARGV[1])
      entry['id'] = id
      redis.call('ZADD', KEYS[2], id, cjson.encode(entry))
      for _, old in ipairs(redis.call('ZRANGE', KEYS[2], 0, 99)) do
        if cjson.decode(old)['at'] >= ARGV[2] then break end
        redis.call('ZREM', KEYS[2], old)
      end
      return id`,
  },
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
} as const;

/** The scripts as commands of every client and pipeline (ioredis's way of typing defineCommand). */
declare module 'ioredis' {
  interface RedisCommander<Context> {
    tisClaimInitialKey(
      index: string,
      lock: string,
      id: string,
      lockMs: string,
    ): Result<number, Context>;
    tisInsertRecord(record: string, ...fields: string[]): Result<number, Context>;
    tisUpdateKey(record: string, ...args: string[]): Result<number, Context>;
    tisRotateKey(record: string, ...args: string[]): Result<string[] | null, Context>;
    tisRevokeKey(record: string, at: string): Result<number, Context>;
    tisTouchKey(record: string, at: string): Result<number, Context>;
    tisWriteOverride(overrides: string, ...args: string[]): Result<number, Context>;
    tisConsumeQuota(
      counter: string,
      limit: string,
      keepSeconds: string,
    ): Result<[number, number], Context>;
    tisAppendAudit(
      seq: string,
      log: string,
      entry: string,
      keepSince: string,
    ): Result<number, Context>;
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
  }
}
