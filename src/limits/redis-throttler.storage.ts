import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type Redis from 'ioredis';
import type { Result } from 'ioredis';
import { RedisClient, redisCall } from '../store/redis.connection';
import { RedisKeys } from '../store/redis.keys';
import { CONSUME_QUOTA_LUA } from '../store/redis.scripts';
import { QUOTA_KEEP_SECONDS } from '../store/redis.store';
import { CallCount, CallCounted, CallCounter, KeyRecordChanged } from './call-counter';
import { UNTIL_WINDOW_ENDS } from './key-limits';
import type { BudgetStorage, TakeResult, ThrottlerStorageRecord } from './memory-throttler.storage';

/**
 * `n` hits at once or none, on the keys and in the fixed window of the library's own script (see
 * ThrottlerStorageRedisService): blocked or over the limit, nothing is counted.
 */
const TAKE_SCRIPT = `
local hits = tonumber(redis.call('GET', KEYS[1]) or '0')
local left = redis.call('PTTL', KEYS[1])
local blocked = redis.call('PTTL', KEYS[2])
local ttl = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
if blocked > 0 then return {0, hits, blocked} end
if hits + n > limit then
  if left <= 0 then left = ttl end
  return {0, hits, left}
end
hits = redis.call('INCRBY', KEYS[1], n)
if left <= 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
  left = ttl
end
return {1, hits, left}
`;

/**
 * The calls of one key counted in one step (CallCounter), each as if alone and in order: its
 * record's revision compared (a changed record counts nothing), then the library's script on the
 * key's rate budget (run as it is, as a function), then the day's quota unless the budget refused
 * the call. KEYS: the key's record, hits, blocked, the day's quota counter. ARGV: throttler, ttl,
 * the block duration (UNTIL_WINDOW_ENDS: what is left of the window), seconds to keep the quota
 * counter, then for each call: the revision it was decided on, its rate limit, its daily limit
 * ('' to leave the quota alone, -1 for none).
 * Returns per call {-1} when the record changed, else the library's four values, then
 * {counted 1|0, used} when the quota was counted.
 */
function countCallsScript(throttleLua: string): string {
  return `
local function throttle(KEYS, ARGV)
${throttleLua}
end
${CONSUME_QUOTA_LUA}
local record = redis.call('HMGET', KEYS[1], 'id', 'revision')
local current = record[1] and (record[2] or '0')
local replies = {}
local block = tonumber(ARGV[3])
for i = 5, #ARGV, 3 do
  local reply = {-1}
  if ARGV[i] == current then
    -- UNTIL_WINDOW_ENDS: a call over the limit blocks for what is left of the window.
    if tonumber(ARGV[3]) <= 0 then
      block = redis.call('PTTL', KEYS[2])
      if block <= 0 then block = tonumber(ARGV[2]) end
    end
    reply = throttle({KEYS[2], KEYS[3]}, {ARGV[1], ARGV[2], ARGV[i + 1], block})
    if reply[3] == 0 and ARGV[i + 2] ~= '' then
      local quota = consumeQuota(KEYS[4], ARGV[i + 2], ARGV[4])
      reply[5] = quota[1]
      reply[6] = quota[2]
    end
  end
  replies[#replies + 1] = reply
end
return replies
`;
}

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** countCallsScript. */
    tisCountCalls(
      record: string,
      hits: string,
      blocked: string,
      quota: string,
      ...args: (string | number)[]
    ): Result<number[][], Context>;
    /** The library's script. KEYS: hits, blocked. ARGV: throttler, ttl, limit, block duration. */
    tisThrottle(
      hits: string,
      blocked: string,
      ...args: (string | number)[]
    ): Result<[number, number, number, number], Context>;
    /** TAKE_SCRIPT. KEYS: hits, blocked. ARGV: ttl, limit, n. */
    tisTake(
      hits: string,
      blocked: string,
      ...args: (string | number)[]
    ): Result<[number, number, number], Context>;
  }
}

/**
 * Where a budget's two counters live. A storage key that starts with a hash tag (a key's budget,
 * `{key_…}:rate`: src/store/redis.keys.ts) keeps it, so the counters share the key's Cluster slot
 * with its record and quota; any other key (a client address's failed authentications) gets the
 * library's own tag, `{<key>:<throttler>}`. Both counters always share one slot: the scripts touch both.
 */
export function throttlerKeys(key: string, throttlerName: string): [hits: string, blocked: string] {
  const base = /^\{[^{}]+\}/.test(key) ? `${key}:${throttlerName}` : `{${key}:${throttlerName}}`;
  return [`${base}:hits`, `${base}:blocked`];
}

/**
 * The maintained Redis storage of @nestjs/throttler (one atomic Lua script per hit), so that rate
 * limits and failed-authentication counts are shared by every instance, on one Redis, under
 * Sentinel or on a Cluster. Extended where it needs to be: the counters' keys follow the service's
 * key layout (the library has no seam for key names, so `increment` is its own, on the library's
 * script, sent as EVALSHA), and a Redis that cannot be reached is StoreUnavailableError (503), like
 * every other store call. It is given the store's command connection, so it never opens or closes
 * one of its own.
 */
export class RedisThrottlerStorage extends ThrottlerStorageRedisService implements BudgetStorage {
  private readonly client: RedisClient;

  constructor(client: RedisClient) {
    // The library takes a Redis or a Cluster alike; its typings name them in separate overloads.
    super(client as Redis);
    this.client = client;
    client.defineCommand('tisThrottle', { numberOfKeys: 2, lua: this.scriptSrc });
    client.defineCommand('tisTake', { numberOfKeys: 2, lua: TAKE_SCRIPT });
  }

  override async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    return throttled(
      await redisCall(
        this.client.tisThrottle(
          ...throttlerKeys(key, throttlerName),
          throttlerName,
          ttl,
          limit,
          blockDuration,
        ),
      ),
    );
  }

  async take(
    key: string,
    ttl: number,
    limit: number,
    n: number,
    throttlerName: string,
  ): Promise<TakeResult> {
    const [taken, totalHits, leftMs] = await redisCall(
      this.client.tisTake(...throttlerKeys(key, throttlerName), ttl, limit, n),
    );
    return {
      taken: taken === 1,
      totalHits,
      retryAfterSeconds: Math.max(1, Math.ceil(leftMs / 1000)),
    };
  }
}

/** The library script's reply as its storage answers it (times in whole seconds). */
function throttled([totalHits, timeToExpire, isBlocked, timeToBlockExpire]: number[]) {
  return {
    totalHits,
    timeToExpire: Math.ceil(timeToExpire / 1000),
    isBlocked: isBlocked === 1,
    timeToBlockExpire: Math.ceil(timeToBlockExpire / 1000),
  };
}

/** A call waiting for its round's script. */
interface Waiting {
  call: CallCount;
  counted: (result: CallCounted) => void;
  failed: (error: unknown) => void;
}

/**
 * Several instances on Redis: a call's whole count is one script on the key's slot (its record,
 * rate budget and quota share a hash tag), which also checks that the record the call was decided
 * on is still the stored one.
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
   * (the requests waiting on the round). That was 13 MB/s of promoted garbage at 15,000 calls/s
   * (docs/performance.md, "Promoted garbage").
   */
  private waiting = new Map<string, Waiting[]>();

  constructor(
    private readonly client: RedisClient,
    storage: RedisThrottlerStorage,
  ) {
    super();
    client.defineCommand('tisCountCalls', {
      numberOfKeys: 4,
      lua: countCallsScript(storage.scriptSrc),
    });
  }

  count(call: CallCount): Promise<CallCounted> {
    return new Promise((counted, failed) => {
      const group = `${call.key.id} ${call.quota?.day ?? ''}`;
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
          ...throttlerKeys(budget.storageKey, budget.throttler),
          RedisKeys.quota(key.id, quota?.day ?? ''),
          budget.throttler,
          budget.ttlMs,
          UNTIL_WINDOW_ENDS,
          QUOTA_KEEP_SECONDS,
          ...calls.flatMap(({ call }) => [
            String(call.key.revision ?? 0),
            call.budget.limit,
            call.quota ? String(call.quota.limit ?? -1) : '',
          ]),
        ),
      );
      calls.forEach(({ counted, failed }, i) => {
        const reply = replies[i];
        if (reply[0] === -1) return failed(new KeyRecordChanged());
        const rate = throttled(reply);
        counted(
          reply.length < 6
            ? { rate }
            : { rate, quota: { allowed: reply[4] === 1, used: reply[5] } },
        );
      });
    } catch (error) {
      for (const { failed } of calls) failed(error);
    }
  }
}
