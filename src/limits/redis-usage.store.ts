import { Cluster } from 'ioredis';
import { indexEntries, ledgerWriteArguments } from '../ledger';
import { redisCall } from '../kernel/store/redis/redis.connection';
import type { RedisDatabase } from '../kernel/store/redis/redis.database';
import { RedisKeys } from '../kernel/store/redis/redis.keys';
import {
  CHARGE_KEYS,
  chargeArguments,
  chargeKeys,
  CONSUME_QUOTA_LUA,
  quotaResult,
  REFUND_LUA,
  TAKE_USAGE_LUA,
} from './redis-usage.scripts';
import {
  DayUsage,
  historyPeriods,
  QuotaCharge,
  QuotaResult,
  Refund,
  UsageStore,
} from './usage.store';

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
  /** The scripts write the ledger's time index themselves (not on a Cluster). */
  private readonly indexed: boolean;

  constructor(private readonly redis: RedisDatabase) {
    super();
    this.indexed = !(redis.client instanceof Cluster);
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
    const keys = chargeKeys(keyId, { ...charge, runId: charge.run?.id }, this.indexed);
    const reply = await redisCall(
      this.redis.client.tisConsumeQuota(...keys, ...chargeArguments(charge, this.indexed)),
    );
    const result = quotaResult(reply);
    if (result.allowed && charge.entry) {
      await indexEntries(this.redis.client, [{ entry: charge.entry, day: charge.day }]);
    }
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
        ...chargeKeys(keyId, refund, this.indexed),
        String(refund.credits),
        refund.tool,
        refund.runId ? '1' : '',
        ...ledgerWriteArguments(refund.entry, this.indexed),
      ),
    );
    if (refund.entry)
      await indexEntries(this.redis.client, [{ entry: refund.entry, day: refund.day }]);
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
