import type { Result } from 'ioredis';
import {
  LEDGER_WRITE_ARGUMENTS,
  LEDGER_WRITE_KEYS,
  LEDGER_WRITE_LUA,
  ledgerWriteArguments,
  ledgerWriteKeys,
} from '../ledger';
import { RedisKeys } from '../kernel/store/redis/redis.keys';
import { QuotaCharge, QuotaResult, USAGE_KEEP_DAYS } from './usage.store';

/**
 * A day's counters live 91 days from their first call, so the 90 days of the usage history can be
 * read, and Redis forgets them by itself afterwards.
 */
export const QUOTA_KEEP_SECONDS = (USAGE_KEEP_DAYS + 1) * 86_400;
/** A month's counter outlives its month by a few days, then Redis forgets it. */
export const MONTH_KEEP_SECONDS = 35 * 86_400;
/** A run's spending outlives the longest run (7 days) by the 30 days an ended run is kept. */
export const RUN_SPENDING_KEEP_SECONDS = 37 * 86_400;

/**
 * Lua: `consumeQuota(keys, k, args, a)` charges one call `cost` credits on the day's counter and the
 * month's, unless it needs more than remains of either limit (-1: no limit) or of its run's budget
 * ('': no run): the month first, so that its refusal wins when both would refuse, then the day,
 * then the run; nothing is charged then. The month is counted with or without a monthly limit, so
 * that one set mid-month meets the month's whole spend. The call is counted for its tool in the
 * day's tools hash, for its run in the run's spending hash (`spent`, `tool:<tool>`), and its ledger
 * entry (id '': none) is written beside them by the ledger's writer (LEDGER_WRITE_LUA: the entry,
 * its day sum, and the time index where the script writes it; not on a Cluster, where the index is
 * another slot's: written right after, indexEntries).
 * KEYS from `keys[k]`: chargeKeys (day, month, tools, run, then the writer's); ARGV from `args[a]`:
 * chargeArguments (daily limit, monthly limit, cost, tool, run budget, then the writer's). Returns {counted 1|0, day used, month used (-1: not
 * counted), refused 0|1 day|2 month|3 run, run spent (-1: no run)}. Shared by `tisConsumeQuota`
 * and the call counter's script; every key in the subject's hash tag but the time index.
 */
export const CONSUME_QUOTA_LUA = `
${LEDGER_WRITE_LUA}
local function consumeQuota(keys, k, args, a)
  local day, month, tools, run = keys[k], keys[k + 1], keys[k + 2], keys[k + 3]
  local dailyLimit, monthlyLimit = tonumber(args[a]), tonumber(args[a + 1])
  local cost, tool, runBudget = tonumber(args[a + 2]), args[a + 3], args[a + 4]
  local used = tonumber(redis.call('GET', day) or '0')
  local monthUsed = -1
  if monthlyLimit >= 0 then
    monthUsed = tonumber(redis.call('GET', month) or '0')
    if monthUsed + cost > monthlyLimit then return {0, used, monthUsed, 2, -1} end
  end
  if dailyLimit >= 0 and used + cost > dailyLimit then return {0, used, monthUsed, 1, -1} end
  local runSpent = -1
  if runBudget ~= '' then
    runSpent = tonumber(redis.call('HGET', run, 'spent') or '0')
    if runSpent + cost > tonumber(runBudget) then return {0, used, monthUsed, 3, runSpent} end
  end
  -- A counter that INCRBY just made holds the cost alone: it is given its lifetime then (an older
  -- one holding it too, after calls of cost 0 only, has its lifetime renewed: no harm).
  used = redis.call('INCRBY', day, cost)
  if used == cost then redis.call('EXPIRE', day, ${QUOTA_KEEP_SECONDS}) end
  local spent = redis.call('INCRBY', month, cost)
  if spent == cost then redis.call('EXPIRE', month, ${MONTH_KEEP_SECONDS}) end
  if monthlyLimit >= 0 then monthUsed = spent end
  redis.call('HINCRBY', tools, tool .. ':calls', 1)
  redis.call('HINCRBY', tools, tool .. ':credits', cost)
  if redis.call('TTL', tools) < 0 then redis.call('EXPIRE', tools, ${QUOTA_KEEP_SECONDS}) end
  if runBudget ~= '' then
    runSpent = redis.call('HINCRBY', run, 'spent', cost)
    redis.call('HINCRBY', run, 'tool:' .. tool, cost)
    if redis.call('TTL', run) < 0 then redis.call('EXPIRE', run, ${RUN_SPENDING_KEEP_SECONDS}) end
  end
  writeLedger(keys, k + 4, args, a + 5)
  return {1, used, monthUsed, 0, runSpent}
end`;

/** How many KEYS and ARGV one charge takes (chargeKeys, chargeArguments). */
export const CHARGE_KEYS = 4 + LEDGER_WRITE_KEYS;
export const CHARGE_ARGUMENTS = 5 + LEDGER_WRITE_ARGUMENTS;

/**
 * The script's ARGV for one charge (see CONSUME_QUOTA_LUA); `indexed`: the script writes the time
 * index too (one Redis or Sentinel's master; never a Cluster).
 */
export function chargeArguments(charge: QuotaCharge, indexed: boolean): string[] {
  return [
    String(charge.dailyLimit ?? -1),
    String(charge.monthlyLimit ?? -1),
    String(charge.cost),
    charge.tool,
    charge.run ? String(charge.run.budget) : '',
    ...ledgerWriteArguments(charge.entry, indexed),
  ];
}

/**
 * The script's KEYS for one charge: the day's counter, the month's, the day's tools hash, the run's
 * spending (a name in the subject's slot, never written, without a run), then the ledger writer's
 * (ledgerWriteKeys: the subject's ledger, and the time index where the script writes it).
 */
export function chargeKeys(
  keyId: string,
  charge: Pick<QuotaCharge, 'day' | 'month'> & { runId?: string | null },
  indexed: boolean,
): string[] {
  return [
    RedisKeys.quota(keyId, charge.day),
    RedisKeys.monthlyQuota(keyId, charge.month),
    RedisKeys.toolUsage(keyId, charge.day),
    RedisKeys.runSpending(keyId, charge.runId ?? ''),
    ...ledgerWriteKeys(keyId, charge.day, indexed),
  ];
}

/** The script's reply (its five values from `at`) as a QuotaResult. */
export function quotaResult(reply: number[], at = 0): QuotaResult {
  const [counted, used, monthUsed, refused, runSpent] = reply.slice(at, at + 5);
  const result: QuotaResult = {
    allowed: counted === 1,
    used,
    monthUsed: monthUsed < 0 ? null : monthUsed,
  };
  if (refused) result.refused = refused === 1 ? 'daily' : refused === 2 ? 'monthly' : 'run';
  if (runSpent >= 0) result.runSpent = runSpent;
  return result;
}

/**
 * Lua: takes counters: KEYS the counters (strings) then the tools hashes, ARGV[1] how many are
 * counters. Answers, per key, {} when absent, else its PTTL then its value (a counter) or its
 * field/value pairs (a hash), and deletes it.
 */
export const TAKE_USAGE_LUA = `
local taken = {}
for i, key in ipairs(KEYS) do
  local ttl = redis.call('PTTL', key)
  if ttl == -2 then taken[i] = {}
  elseif i <= tonumber(ARGV[1]) then taken[i] = {ttl, redis.call('GET', key)}
  else
    local fields = redis.call('HGETALL', key)
    table.insert(fields, 1, ttl)
    taken[i] = fields
  end
  redis.call('DEL', key)
end
return taken`;

/**
 * Lua: a counted call's credits given back (UsageStore.refund). KEYS: chargeKeys (of the charge's
 * day). ARGV: credits, tool, '1' when charged to a run, then the ledger writer's for the refund's
 * entry. The day's and month's counters (where they still are: never below 0), the tool's credits
 * and `failed` in the day's tools hash, the run's spending, and the refund's ledger entry (on the
 * charge's day's sum).
 */
export const REFUND_LUA = `
${LEDGER_WRITE_LUA}
local credits = tonumber(ARGV[1])
writeLedger(KEYS, 5, ARGV, 4)
if ARGV[3] == '1' then
  local spent = tonumber(redis.call('HGET', KEYS[4], 'tool:' .. ARGV[2]) or '0')
  local back = math.min(spent, credits)
  if back > 0 then
    redis.call('HINCRBY', KEYS[4], 'tool:' .. ARGV[2], -back)
    redis.call('HINCRBY', KEYS[4], 'spent', -back)
  end
end
for i = 1, 2 do
  local left = tonumber(redis.call('GET', KEYS[i]) or '0')
  if left > 0 then redis.call('DECRBY', KEYS[i], math.min(left, credits)) end
end
local spent = tonumber(redis.call('HGET', KEYS[3], ARGV[2] .. ':credits') or '0')
if spent > 0 then redis.call('HINCRBY', KEYS[3], ARGV[2] .. ':credits', -math.min(spent, credits)) end
redis.call('HINCRBY', KEYS[3], ARGV[2] .. ':failed', 1)
if redis.call('TTL', KEYS[3]) < 0 then redis.call('EXPIRE', KEYS[3], ${QUOTA_KEEP_SECONDS}) end
return 1`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** KEYS: chargeKeys. ARGV: chargeArguments. */
    tisConsumeQuota(...args: string[]): Result<number[], Context>;
    /** KEYS: counters then tools hashes. ARGV: how many counters. */
    tisTakeUsage(...args: string[]): Result<(string | number)[][], Context>;
    /** KEYS: chargeKeys. ARGV: credits, tool, run '1'|'', the ledger writer's. */
    tisRefund(...args: string[]): Result<number, Context>;
  }
}
