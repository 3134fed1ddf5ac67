import type { Result } from 'ioredis';
import type { RedisScript } from '../kernel/store/redis/redis.database';

/**
 * A key's own scripts (the record scripts every record shares are RECORD_SCRIPTS). Every script
 * that changes a record raises its `revision` (the call counter compares it with a cached copy's).
 * KEYS are prefixed by the client's keyPrefix; ARGV are not.
 */
export const KEY_SCRIPTS = {
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
} as const satisfies Record<string, RedisScript>;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    tisClaimInitialKey(
      index: string,
      lock: string,
      id: string,
      lockMs: string,
    ): Result<number, Context>;
    tisRotateKey(record: string, ...args: string[]): Result<string[] | null, Context>;
    tisRevokeKey(record: string, at: string): Result<number, Context>;
  }
}
