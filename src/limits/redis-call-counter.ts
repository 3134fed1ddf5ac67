import { Cluster, type Result } from 'ioredis';
import { indexEntries, type LedgerWrite } from '../ledger';
import { RedisClient, redisCall } from '../kernel/store/redis/redis.connection';
import { RedisKeys } from '../kernel/store/redis/redis.keys';
import { BUCKET_LUA, bucketDraw, bucketKey } from './redis-rate.store';
import {
  CHARGE_ARGUMENTS,
  CHARGE_KEYS,
  chargeArguments,
  chargeKeys,
  CONSUME_QUOTA_LUA,
  quotaResult,
} from './redis-usage.scripts';
import { CallCount, CallCounted, CallCounter, SubjectRecordChanged } from './call-counter';

/**
 * The calls of one key counted in one step (CallCounter), each as if alone and in order: its
 * record's revision compared (a changed record counts nothing), then one call drawn from the key's
 * token bucket (BUCKET_LUA), then its charge against the day's (and the month's) credits and its
 * run's budget, with its ledger entry (CONSUME_QUOTA_LUA), unless the bucket refused the call. KEYS:
 * the key's record, its bucket, then chargeKeys. ARGV: the rate window, then for each call: the
 * revision it was decided on, its time, its rate, its burst, then chargeArguments (its daily limit
 * '' to leave the quota alone).
 * Returns per call {-1} when the record changed, else the bucket's four values, then the charge's
 * five (consumeQuota's) when the quota was asked.
 */
const COUNT_CALLS_SCRIPT = `
${BUCKET_LUA}
${CONSUME_QUOTA_LUA}
local record = redis.call('HMGET', KEYS[1], 'id', 'revision')
local current = record[1] and (record[2] or '0')
local window = tonumber(ARGV[1])
local replies = {}
for i = 2, #ARGV, 4 + ${CHARGE_ARGUMENTS} do
  local reply = {-1}
  if ARGV[i] == current then
    reply = drawBucket(KEYS[2], tonumber(ARGV[i + 1]), window, tonumber(ARGV[i + 2]),
      tonumber(ARGV[i + 3]), 1)
    if reply[1] == 1 and ARGV[i + 4] ~= '' then
      local quota = consumeQuota(KEYS, 3, ARGV, i + 4)
      for q = 1, 5 do reply[4 + q] = quota[q] end
    end
  end
  replies[#replies + 1] = reply
end
return replies
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** COUNT_CALLS_SCRIPT. */
    tisCountCalls(
      record: string,
      bucket: string,
      ...args: (string | number)[]
    ): Result<number[][], Context>;
  }
}

/** The ARGV of a call whose quota is not counted here (its daily limit '' says so). */
const NO_CHARGE: string[] = Array.from({ length: CHARGE_ARGUMENTS }, () => '');

/** A call waiting for its round's script. */
interface Waiting {
  call: CallCount;
  counted: (result: CallCounted) => void;
  failed: (error: unknown) => void;
}

/**
 * Several instances on Redis: a call's whole count is one script on the key's slot (its record,
 * rate budget and quota share a hash tag), which also checks that the record the call was decided
 * on is still the stored one. The ledger entries of the calls it counted are then indexed by time
 * (indexEntries).
 *
 * The calls of one key that arrive in one round of the event loop share that script: it runs when
 * the round ends (as ioredis's auto-pipelining sends its commands) and counts each in order, so a
 * busy key costs Redis one script a round instead of one a call, and this process one command.
 */
export class RedisCallCounter extends CallCounter {
  /**
   * This round's calls, by key and day (the keys of one script): a new Map each round, not one
   * emptied with clear(). V8 gives a cleared Map's next table the generation of its last, and the
   * cleared table keeps its entries: once the Map is old (any full collection of a running
   * process makes it so), every round's calls would stay reachable from an old, dead table until
   * the next full collection, survive the scavenges in between and be promoted, with all they hold
   * (the requests waiting on the round): a steady stream of promoted garbage (docs/performance.md, "Why the hot path is written as it is").
   */
  private waiting = new Map<string, Waiting[]>();

  /** The script writes the ledger's time index itself (not on a Cluster). */
  private readonly indexed: boolean;

  constructor(private readonly client: RedisClient) {
    super();
    this.indexed = !(client instanceof Cluster);
    client.defineCommand('tisCountCalls', {
      numberOfKeys: 2 + CHARGE_KEYS,
      lua: COUNT_CALLS_SCRIPT,
    });
  }

  count(call: CallCount): Promise<CallCounted> {
    return new Promise((counted, failed) => {
      const group = `${call.key.id} ${call.quota?.day ?? ''} ${call.quota?.run?.id ?? ''}`;
      const calls = this.waiting.get(group);
      if (calls) return void calls.push({ call, counted, failed });
      if (this.waiting.size === 0) setImmediate(() => this.flush());
      this.waiting.set(group, [{ call, counted, failed }]);
    });
  }

  private flush(): void {
    const round = this.waiting;
    this.waiting = new Map();
    for (const calls of round.values()) void this.send(calls);
  }

  private async send(calls: Waiting[]): Promise<void> {
    const { key, budget, quota } = calls[0].call;
    try {
      const replies = await redisCall(
        this.client.tisCountCalls(
          RedisKeys.record(key.id),
          bucketKey(budget),
          ...chargeKeys(
            key.id,
            { day: '', month: '', ...quota, runId: quota?.run?.id },
            this.indexed,
          ),
          budget.windowMs,
          ...calls.flatMap(({ call }) => [
            String(call.key.revision ?? 0),
            call.nowMs,
            call.budget.rate,
            call.budget.burst,
            ...(call.quota ? chargeArguments(call.quota, this.indexed) : NO_CHARGE),
          ]),
        ),
      );
      const results = calls.map((_, i): CallCounted | undefined => {
        const reply = replies[i];
        if (reply[0] === -1) return undefined;
        const rate = bucketDraw(reply);
        return reply.length < 9 ? { rate } : { rate, quota: quotaResult(reply, 4) };
      });
      const entries = calls.flatMap(({ call }, i): LedgerWrite[] =>
        results[i]?.quota?.allowed && call.quota?.entry
          ? [{ entry: call.quota.entry, day: call.quota.day }]
          : [],
      );
      await indexEntries(this.client, entries);
      calls.forEach(({ counted, failed }, i) => {
        const result = results[i];
        if (result) counted(result);
        else failed(new SubjectRecordChanged());
      });
    } catch (error) {
      for (const { failed } of calls) failed(error);
    }
  }
}
