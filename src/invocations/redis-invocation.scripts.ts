import type { Result } from 'ioredis';
import type { RedisScript } from '../kernel/store/redis/redis.database';

const MOVE_LUA = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {} end
local allowed = false
for s in string.gmatch(ARGV[1], '[^|]+') do if s == status then allowed = true end end
if not allowed then return {} end
for i = 4, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i])
  else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
if ARGV[2] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
local all = redis.call('HGETALL', KEYS[1])
if ARGV[3] == '' then return all end
local kept = {}
for i = 1, #all, 2 do
  if all[i] ~= ARGV[3] then kept[#kept + 1] = all[i]; kept[#kept + 1] = all[i + 1] end
end
return kept`;

const CANCEL_LUA = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
for s in string.gmatch(ARGV[1], '[^|]+') do
  if s == status then
    redis.call('HSET', KEYS[1], 'cancel_requested', '1')
    redis.call('PUBLISH', ARGV[2], ARGV[3])
    return 1
  end
end
return 0`;

/** The scripts of long-running calls' records, each on the record's own slot. */
export const INVOCATION_SCRIPTS = {
  tisMoveInvocation: { numberOfKeys: 1, lua: MOVE_LUA },
  tisCancelInvocation: { numberOfKeys: 1, lua: CANCEL_LUA },
} as const satisfies Record<string, RedisScript>;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /**
     * KEYS: the record. ARGV: the statuses it may be in ('|'-joined), the time it expires (ms, ''
     * for none), a field not to return ('' for none), then field/value pairs ('' deletes).
     * Returns the record after (HGETALL, that field left out), or an empty list when it was in no
     * such status.
     */
    tisMoveInvocation(record: string, ...args: string[]): Result<string[], Context>;
    /** KEYS: the record. ARGV: the statuses a cancel applies to ('|'-joined), the channel, its id. */
    tisCancelInvocation(record: string, ...args: string[]): Result<number, Context>;
  }
}
