import type { Result } from 'ioredis';
import { type LedgerEntry, LedgerKeys } from '../ledger';
import { RedisClient, redisCall } from '../kernel/store/redis/redis.connection';
import type { RedisDatabase } from '../kernel/store/redis/redis.database';
import { RedisKeys } from '../kernel/store/redis/redis.keys';
import {
  DayUsage,
  historyPeriods,
  QuotaCharge,
  QuotaResult,
  Refund,
  USAGE_KEEP_DAYS,
  UsageStore,
} from './usage.store';

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
 * entry (id '': none) is written beside them. KEYS from `keys[k]`: chargeKeys (day, month, tools,
 * run, ledger entries, ledger ids); ARGV from `args[a]`: chargeArguments (daily limit, monthly
 * limit, cost, tool, run budget, entry id, entry JSON). Returns {counted 1|0, day used, month used
 * (-1: not counted), refused 0|1 day|2 month|3 run, run spent (-1: no run)}. Shared by
 * `tisConsumeQuota` and the call counter's script; every key in the subject's hash tag.
 */
export const CONSUME_QUOTA_LUA = `
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
  if args[a + 5] ~= '' then
    redis.call('HSET', keys[k + 4], args[a + 5], args[a + 6])
    redis.call('ZADD', keys[k + 5], 0, args[a + 5])
  end
  return {1, used, monthUsed, 0, runSpent}
end`;

/** How many KEYS and ARGV one charge takes (chargeKeys, chargeArguments). */
export const CHARGE_KEYS = 6;
export const CHARGE_ARGUMENTS = 7;

/** The script's ARGV for one charge (see CONSUME_QUOTA_LUA). */
export function chargeArguments(charge: QuotaCharge): string[] {
  return [
    String(charge.dailyLimit ?? -1),
    String(charge.monthlyLimit ?? -1),
    String(charge.cost),
    charge.tool,
    charge.run ? String(charge.run.budget) : '',
    charge.entry?.id ?? '',
    charge.entry ? JSON.stringify(charge.entry) : '',
  ];
}

/**
 * The script's KEYS for one charge: the day's counter, the month's, the day's tools hash, the run's
 * spending (a name in the subject's slot, never written, without a run), the subject's ledger.
 */
export function chargeKeys(
  keyId: string,
  charge: Pick<QuotaCharge, 'day' | 'month'> & { runId?: string | null },
): string[] {
  return [
    RedisKeys.quota(keyId, charge.day),
    RedisKeys.monthlyQuota(keyId, charge.month),
    RedisKeys.toolUsage(keyId, charge.day),
    RedisKeys.runSpending(keyId, charge.runId ?? ''),
    LedgerKeys.entries(keyId),
    LedgerKeys.ids(keyId),
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
 * The time index of ledger entries just written (LedgerKeys.index), in one command: written right
 * after the step that wrote them, which the ledger check of `doctor` reconciles.
 */
export async function indexEntries(redis: RedisClient, entries: LedgerEntry[]): Promise<void> {
  if (!entries.length) return;
  const members = entries.flatMap((entry) => [0, LedgerKeys.indexMember(entry)]);
  await redisCall(redis.zadd(LedgerKeys.index, ...members));
}

/**
 * Lua: takes counters: KEYS the counters (strings) then the tools hashes, ARGV[1] how many are
 * counters. Answers, per key, {} when absent, else its PTTL then its value (a counter) or its
 * field/value pairs (a hash), and deletes it.
 */
const TAKE_USAGE_LUA = `
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
 * Lua: a counted call's credits given back (UsageStore.refund). KEYS: chargeKeys. ARGV: credits,
 * tool, entry id ('': none), entry JSON, '1' when charged to a run. The day's and month's counters
 * (where they still are: never below 0), the tool's credits and `failed` in the day's tools hash,
 * the run's spending, and the refund's ledger entry.
 */
const REFUND_LUA = `
local credits = tonumber(ARGV[1])
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[5], ARGV[3], ARGV[4])
  redis.call('ZADD', KEYS[6], 0, ARGV[3])
end
if ARGV[5] == '1' then
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
    /** KEYS: chargeKeys. ARGV: credits, tool, entry id, entry JSON, run '1'|''. */
    tisRefund(...args: string[]): Result<number, Context>;
  }
}

/** Every counter of a key in the usage history up to `today`: the counters, then the hashes. */
function historyKeys(keyId: string, today: string): { counters: string[]; hashes: string[] } {
  const { days, months } = historyPeriods(today);
  return {
    counters: [
      ...days.map((day) => RedisKeys.quota(keyId, day)),
      ...months.map((month) => RedisKeys.monthlyQuota(keyId, month)),
    ],
    hashes: days.map((day) => RedisKeys.toolUsage(keyId, day)),
  };
}

/** Usage counters in Redis: per key and day, month and day's tools, under the key's hash tag. */
export class RedisUsageStore extends UsageStore {
  constructor(private readonly redis: RedisDatabase) {
    super();
    redis.define({
      tisConsumeQuota: {
        numberOfKeys: CHARGE_KEYS,
        lua: `${CONSUME_QUOTA_LUA}
      return consumeQuota(KEYS, 1, ARGV, 1)`,
      },
      tisTakeUsage: { lua: TAKE_USAGE_LUA },
      tisRefund: { numberOfKeys: CHARGE_KEYS, lua: REFUND_LUA },
    });
  }

  async consumeQuota(keyId: string, charge: QuotaCharge): Promise<QuotaResult> {
    const keys = chargeKeys(keyId, { ...charge, runId: charge.run?.id });
    const reply = await redisCall(
      this.redis.client.tisConsumeQuota(...keys, ...chargeArguments(charge)),
    );
    const result = quotaResult(reply);
    if (result.allowed && charge.entry) await indexEntries(this.redis.client, [charge.entry]);
    return result;
  }

  /** One more write after a failed call, pipelined with nothing: the failed calls only. */
  async countFailure(keyId: string, day: string, tool: string): Promise<void> {
    await redisCall(
      this.redis.client.hincrby(RedisKeys.toolUsage(keyId, day), `${tool}:failed`, 1),
    );
  }

  /** One script on the key's slot: the day's and month's counters and tools hash share it. */
  async refund(keyId: string, refund: Refund): Promise<void> {
    await redisCall(
      this.redis.client.tisRefund(
        ...chargeKeys(keyId, refund),
        String(refund.credits),
        refund.tool,
        refund.entry?.id ?? '',
        refund.entry ? JSON.stringify(refund.entry) : '',
        refund.runId ? '1' : '',
      ),
    );
    if (refund.entry) await indexEntries(this.redis.client, [refund.entry]);
  }

  async getRunSpending(subjectId: string, runId: string): Promise<Record<string, number>> {
    const fields = await redisCall(
      this.redis.client.hgetall(RedisKeys.runSpending(subjectId, runId)),
    );
    const spending: Record<string, number> = {};
    for (const [field, value] of Object.entries(fields)) {
      if (field.startsWith('tool:') && Number(value) > 0) spending[field.slice(5)] = Number(value);
    }
    return spending;
  }

  async deleteRunSpending(subjectId: string, runId: string): Promise<void> {
    await redisCall(this.redis.client.del(RedisKeys.runSpending(subjectId, runId)));
  }

  async getUsage(keyId: string, day: string): Promise<number> {
    return Number((await redisCall(this.redis.client.get(RedisKeys.quota(keyId, day)))) ?? 0);
  }

  async getMonthUsage(keyId: string, month: string): Promise<number> {
    return Number(
      (await redisCall(this.redis.client.get(RedisKeys.monthlyQuota(keyId, month)))) ?? 0,
    );
  }

  /**
   * One script takes `from`'s counters (its slot), one pipeline adds them to `to`'s (its slot),
   * each keeping the lifetime it had left.
   */
  async moveUsage(from: string, to: string, today: string): Promise<void> {
    const source = historyKeys(from, today);
    const target = historyKeys(to, today);
    const keys = [...source.counters, ...source.hashes];
    const taken = await redisCall(
      this.redis.client.tisTakeUsage(String(keys.length), ...keys, String(source.counters.length)),
    );
    const targets = [...target.counters, ...target.hashes];
    const pipeline = this.redis.client.pipeline();
    taken.forEach((entry, i) => {
      if (!entry.length) return;
      const [ttl, ...value] = entry;
      if (i < source.counters.length) pipeline.incrby(targets[i], Number(value[0]));
      else {
        for (let f = 0; f + 1 < value.length; f += 2) {
          pipeline.hincrby(targets[i], String(value[f]), Number(value[f + 1]));
        }
      }
      if (Number(ttl) > 0) pipeline.pexpire(targets[i], Number(ttl));
    });
    if (pipeline.length) await redisCall(pipeline.exec());
  }

  async deleteUsage(keyId: string, today: string): Promise<void> {
    const { counters, hashes } = historyKeys(keyId, today);
    await redisCall(this.redis.client.del(...counters, ...hashes));
  }

  /** One MGET and one HGETALL a day, pipelined: a key's days share its slot. */
  async getUsageDays(keyId: string, days: string[]): Promise<DayUsage[]> {
    if (!days.length) return [];
    const client = this.redis.client;
    const [counts, tools] = await Promise.all([
      redisCall(client.mget(days.map((day) => RedisKeys.quota(keyId, day)))),
      Promise.all(days.map((day) => redisCall(client.hgetall(RedisKeys.toolUsage(keyId, day))))),
    ]);
    return days.map((_, i) => ({ used: Number(counts[i] ?? 0), byTool: toolsOf(tools[i]) }));
  }
}

/** A day's tools hash (`<tool>:calls`, `<tool>:credits`, `<tool>:failed`) as usage per tool. */
function toolsOf(fields: Record<string, string>): DayUsage['byTool'] {
  const tools: DayUsage['byTool'] = {};
  for (const [field, value] of Object.entries(fields)) {
    const at = field.lastIndexOf(':');
    const [tool, what] = [field.slice(0, at), field.slice(at + 1)];
    if (what !== 'calls' && what !== 'credits' && what !== 'failed') continue;
    tools[tool] ??= { calls: 0, credits: 0, failed: 0 };
    tools[tool][what] = Number(value);
  }
  return tools;
}
