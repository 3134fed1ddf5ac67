import type { Result } from 'ioredis';
import type { RedisScript } from '../kernel/store/redis/redis.database';

/** The scripts of principal records beside the ones every record shares (RECORD_SCRIPTS). */
export const PRINCIPAL_SCRIPTS = {
  /** KEYS: the record. ARGV: scopes. Their union with the recorded ones, sorted (no revision). */
  tisAddScopes: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
      local set, list = {}, {}
      for scope in string.gmatch(redis.call('HGET', KEYS[1], 'scopes') or '', '%S+') do
        if not set[scope] then set[scope] = true; table.insert(list, scope) end
      end
      local before = #list
      for _, scope in ipairs(ARGV) do
        if not set[scope] then set[scope] = true; table.insert(list, scope) end
      end
      if #list == before then return 0 end
      table.sort(list)
      redis.call('HSET', KEYS[1], 'scopes', table.concat(list, ' '))
      return 1`,
  },
  /** KEYS: the record. Deletes it; answers it as it was (HGETALL's list; empty: none). */
  tisTakeRecord: {
    numberOfKeys: 1,
    lua: `
      local fields = redis.call('HGETALL', KEYS[1])
      redis.call('DEL', KEYS[1])
      return fields`,
  },
  /**
   * KEYS: the record. ARGV: the revision a new record starts from, field/value pairs to set, '--',
   * fields to delete. Creates the record or overwrites those fields, and raises its revision.
   */
  tisPutRecord: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('HSET', KEYS[1], 'revision', ARGV[1]) end
      local i = 2
      while ARGV[i] ~= '--' do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]); i = i + 2 end
      i = i + 1
      while ARGV[i] do redis.call('HDEL', KEYS[1], ARGV[i]); i = i + 1 end
      redis.call('HINCRBY', KEYS[1], 'revision', 1)
      return 1`,
  },
  /**
   * KEYS: the record. ARGV: a time. Deletes the record when it was last seen before then, is
   * enabled and holds no operator setting; 1 when it did.
   */
  tisPurgeIdle: {
    numberOfKeys: 1,
    lua: `
      local f = redis.call('HMGET', KEYS[1], 'last_seen_at', 'enabled', 'plan', 'daily_limit',
        'monthly_limit', 'rate_limit')
      if not f[1] or f[1] >= ARGV[1] or f[2] == '0' then return 0 end
      if f[3] or f[4] or f[5] or f[6] then return 0 end
      redis.call('DEL', KEYS[1])
      return 1`,
  },
  /**
   * KEYS: a lock. ARGV: its holder's token, a lifetime (ms; none: release). Renews or releases the
   * lock only while that holder holds it (one whose lock lapsed never touches the next holder's).
   */
  tisHeldLock: {
    numberOfKeys: 1,
    lua: `
      if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
      if ARGV[2] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
      return redis.call('DEL', KEYS[1])`,
  },
} as const satisfies Record<string, RedisScript>;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    tisAddScopes(record: string, ...scopes: string[]): Result<number, Context>;
    tisTakeRecord(record: string): Result<string[], Context>;
    tisPutRecord(record: string, ...args: string[]): Result<number, Context>;
    tisPurgeIdle(record: string, seenBefore: string): Result<number, Context>;
    tisHeldLock(lock: string, token: string, lifetimeMs?: string): Result<number, Context>;
  }
}
