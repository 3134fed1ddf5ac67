import type { Result } from 'ioredis';
import type { RedisScript } from '../kernel/store/redis/redis.database';

/**
 * The scripts every record hash shares (a key's, a principal's: `{<id>}:record`). Each that
 * changes what a record grants raises its `revision`, which the call counter compares with a kept
 * copy's (RedisCallCounter). KEYS are prefixed by the client's keyPrefix; ARGV are not.
 */
export const RECORD_SCRIPTS = {
  /** KEYS: the record. ARGV: field/value pairs. Never overwrites a record. */
  tisInsertRecord: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 1 then
        return redis.error_reply('ERR a record with this id already exists')
      end
      redis.call('HSET', KEYS[1], unpack(ARGV))
      redis.call('HINCRBY', KEYS[1], 'revision', 1)
      return 1`,
  },
  /**
   * KEYS: the record. ARGV: field/value pairs. Inserts the record when there is none; answers the
   * record as stored (HGETALL's field/value list), new or not.
   */
  tisEnsureRecord: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then
        redis.call('HSET', KEYS[1], unpack(ARGV))
        redis.call('HINCRBY', KEYS[1], 'revision', 1)
      end
      return redis.call('HGETALL', KEYS[1])`,
  },
  /**
   * KEYS: the record. ARGV: field/value pairs to set, then '--', then fields to delete. Never
   * creates a record for an unknown id.
   */
  tisUpdateRecord: {
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
   * KEYS: the record. ARGV: field/value pairs (an empty value deletes its field). Records when the
   * record was last used (its revision stays: nothing it grants changed). Never creates a record
   * for an unknown id.
   */
  tisTouchRecord: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
      for i = 1, #ARGV, 2 do
        if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i])
        else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
      end
      return 0`,
  },
} as const satisfies Record<string, RedisScript>;

/** A change as tisUpdateRecord takes it: fields to set (encoded), '--', fields to delete (null). */
export function updateArguments(
  changes: Record<string, unknown>,
  encode: (field: string, value: unknown) => string,
): string[] {
  const set: string[] = [];
  const unset: string[] = [];
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (value === null) unset.push(field);
    else set.push(field, encode(field, value));
  }
  return [...set, '--', ...unset];
}

declare module 'ioredis' {
  interface RedisCommander<Context> {
    tisInsertRecord(record: string, ...fields: string[]): Result<number, Context>;
    tisEnsureRecord(record: string, ...fields: string[]): Result<string[], Context>;
    tisUpdateRecord(record: string, ...args: string[]): Result<number, Context>;
    tisTouchRecord(record: string, ...fieldsAndValues: string[]): Result<number, Context>;
  }
}
