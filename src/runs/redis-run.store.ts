import type { Result } from 'ioredis';
import { redisCall } from '../kernel/store/redis/redis.connection';
import type { RedisDatabase } from '../kernel/store/redis/redis.database';
import {
  RunChanges,
  RunEndReason,
  RunFilter,
  RunLease,
  RunRecord,
  RunStore,
  runStatus,
} from './run.store';

/** Runs' keys (docs in RedisKeys): the record and the lookup have slots of their own. */
const RunKeys = {
  record: (id: string) => `{${id}}:run`,
  lookup: (hash: string) => `{rh:${hash}}`,
  ofParent: (parentId: string) => `{${parentId}}:runs`,
  activeOf: (parentId: string) => `{${parentId}}:runs:active`,
  index: '{runs}:index',
  /** Every run by when it ends (its expiry, or its end once ended): what the purge reads. */
  ends: '{runs}:ends',
};

/** Tokens whose run id an instance keeps (RedisRunStore.ids). */
const KNOWN_TOKENS = 10_000;

/** Ids a list or a purge reads at once. */
const CHUNK = 200;

const RUN_SCRIPTS = {
  /**
   * KEYS: the parent's active runs, its runs. ARGV: now (ms), the most active, the run's expiry
   * (ms), its id. 1 when there was room and the run is listed, else 0.
   */
  tisAdmitRun: {
    numberOfKeys: 2,
    lua: `
      redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
      if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
      redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
      redis.call('ZADD', KEYS[2], 0, ARGV[4])
      return 1`,
  },
  /** KEYS: the record. ARGV: field/value pairs. The record after, or {} for none. */
  tisChangeRun: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
      redis.call('HSET', KEYS[1], unpack(ARGV))
      return redis.call('HGETALL', KEYS[1])`,
  },
  /**
   * KEYS: the record. ARGV: now, then field/value pairs (JSON: an ISO time compares as its text).
   * The record after, or {} when it is not active at `now`.
   */
  tisExtendRun: {
    numberOfKeys: 1,
    lua: `
      local ended = redis.call('HGET', KEYS[1], 'ended_at')
      if not ended or ended ~= 'null' then return {} end
      if redis.call('HGET', KEYS[1], 'expires_at') <= ARGV[1] then return {} end
      redis.call('HSET', KEYS[1], unpack(ARGV, 2))
      return redis.call('HGETALL', KEYS[1])`,
  },
  /** KEYS: the record. ARGV: ended_at, ended_reason (JSON). The record after, or {} when ended. */
  tisEndRun: {
    numberOfKeys: 1,
    lua: `
      local ended = redis.call('HGET', KEYS[1], 'ended_at')
      if not ended or ended ~= 'null' then return {} end
      redis.call('HSET', KEYS[1], 'ended_at', ARGV[1], 'ended_reason', ARGV[2])
      return redis.call('HGETALL', KEYS[1])`,
  },
};

declare module 'ioredis' {
  interface RedisCommander<Context> {
    tisAdmitRun(...args: (string | number)[]): Result<number, Context>;
    tisChangeRun(...args: string[]): Result<string[], Context>;
    tisExtendRun(...args: string[]): Result<string[], Context>;
    tisEndRun(...args: string[]): Result<string[], Context>;
  }
}

/** A record's fields, each as JSON. */
function toFields(run: Partial<RunRecord>): string[] {
  return Object.entries(run).flatMap(([name, value]) => [name, JSON.stringify(value)]);
}

function toRun(fields: Record<string, string> | string[]): RunRecord | undefined {
  const pairs = Array.isArray(fields) ? pairsOf(fields) : fields;
  if (!pairs.id) return undefined;
  return Object.fromEntries(
    Object.entries(pairs).map(([name, value]) => [name, JSON.parse(value) as unknown]),
  ) as unknown as RunRecord;
}

function pairsOf(flat: string[]): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) pairs[flat[i]] = flat[i + 1];
  return pairs;
}

/**
 * Runs in Redis: a record per run in a slot of its own, its token's lookup in another, and the
 * parent's lists (all, and the active by expiry) in the parent's slot, where admitting a run
 * against the parent's most active runs is one script.
 */
export class RedisRunStore extends RunStore {
  /**
   * Run ids by their token's hash, as read: a token names one run for good (a purged run's record is
   * gone, which the read of the record finds), so a call reads only the run's record. Bounded: the
   * oldest entry leaves first.
   */
  private readonly ids = new Map<string, string>();

  constructor(private readonly redis: RedisDatabase) {
    super();
    redis.define(RUN_SCRIPTS);
  }

  async insert(run: RunRecord, maxActive: number): Promise<boolean> {
    const { client } = this.redis;
    const admitted = await redisCall(
      client.tisAdmitRun(
        RunKeys.activeOf(run.parent.id),
        RunKeys.ofParent(run.parent.id),
        Date.parse(run.created_at),
        maxActive,
        Date.parse(run.expires_at),
        run.id,
      ),
    );
    if (!admitted) return false;
    await redisCall(
      client
        .multi()
        .hset(RunKeys.record(run.id), ...toFields(run))
        .exec(),
    );
    await redisCall(client.set(RunKeys.lookup(run.token_hash), run.id));
    await redisCall(client.zadd(RunKeys.index, 0, run.id));
    await redisCall(client.zadd(RunKeys.ends, Date.parse(run.expires_at), run.id));
    return true;
  }

  async findByHash(hash: string): Promise<RunRecord | undefined> {
    let id = this.ids.get(hash);
    if (id === undefined) {
      const found = await redisCall(this.redis.client.get(RunKeys.lookup(hash)));
      if (found === null) return undefined;
      id = found;
      if (this.ids.size >= KNOWN_TOKENS) this.ids.delete(this.ids.keys().next().value as string);
      this.ids.set(hash, id);
    }
    const run = await this.find(id);
    return run?.token_hash === hash ? run : undefined;
  }

  async find(id: string): Promise<RunRecord | undefined> {
    return toRun(await redisCall(this.redis.client.hgetall(RunKeys.record(id))));
  }

  /** Reads the list's ids newest first, a chunk at a time, until `limit` runs pass the filter. */
  async list(filter: RunFilter): Promise<RunRecord[]> {
    const { client } = this.redis;
    const key = filter.parentId === undefined ? RunKeys.index : RunKeys.ofParent(filter.parentId);
    const found: RunRecord[] = [];
    // Unfiltered, a page reads its own runs (a run gone reads on); a status skips some.
    const chunk = filter.status ? CHUNK : Math.min(CHUNK, filter.limit);
    let before = filter.before;
    for (;;) {
      const ids = await redisCall(
        client.zrevrangebylex(
          key,
          before === undefined ? '+' : `(${before}`,
          '-',
          'LIMIT',
          0,
          chunk,
        ),
      );
      const runs = await Promise.all(ids.map((id) => this.find(id)));
      for (const run of runs) {
        if (!run || (filter.status && runStatus(run, filter.now) !== filter.status)) continue;
        found.push(run);
        if (found.length === filter.limit) return found;
      }
      if (ids.length < chunk) return found;
      before = ids[ids.length - 1];
    }
  }

  async update(id: string, changes: RunChanges): Promise<RunRecord | undefined> {
    const fields = toFields(changes);
    if (!fields.length) return this.find(id);
    return toRun(await redisCall(this.redis.client.tisChangeRun(RunKeys.record(id), ...fields)));
  }

  /**
   * The record's script decides; the parent's active runs and the ends follow, each only where the
   * run is still listed (XX: a run ended meanwhile is not listed again among the active).
   */
  async extend(id: string, lease: RunLease, now: string): Promise<RunRecord | undefined> {
    const { client } = this.redis;
    const after = toRun(
      await redisCall(
        client.tisExtendRun(RunKeys.record(id), JSON.stringify(now), ...toFields(lease)),
      ),
    );
    if (after) {
      const expiry = Date.parse(after.expires_at);
      await redisCall(client.zadd(RunKeys.activeOf(after.parent.id), 'XX', expiry, id));
      await redisCall(client.zadd(RunKeys.ends, 'XX', expiry, id));
    }
    return after;
  }

  async end(id: string, reason: RunEndReason, at: string): Promise<RunRecord | undefined> {
    const after = toRun(
      await redisCall(
        this.redis.client.tisEndRun(RunKeys.record(id), JSON.stringify(at), JSON.stringify(reason)),
      ),
    );
    if (after) {
      await redisCall(this.redis.client.zrem(RunKeys.activeOf(after.parent.id), id));
      await redisCall(this.redis.client.zadd(RunKeys.ends, Date.parse(at), id));
    }
    return after;
  }

  /** The runs whose end (or expiry) is before `before`, oldest first, with their lookups and places. */
  async purge(before: string, limit: number): Promise<RunRecord[]> {
    const { client } = this.redis;
    const ids = await redisCall(
      client.zrangebyscore(RunKeys.ends, '-inf', `(${Date.parse(before)}`, 'LIMIT', 0, limit),
    );
    const gone: RunRecord[] = [];
    for (const id of ids) {
      const run = await this.find(id);
      if (run) {
        // Two slots (a Cluster refuses one DEL across them).
        await redisCall(client.del(RunKeys.record(run.id)));
        await redisCall(client.del(RunKeys.lookup(run.token_hash)));
        await redisCall(client.zrem(RunKeys.ofParent(run.parent.id), run.id));
        await redisCall(client.zrem(RunKeys.activeOf(run.parent.id), run.id));
        gone.push(run);
      }
      await redisCall(client.zrem(RunKeys.index, id));
      await redisCall(client.zrem(RunKeys.ends, id));
    }
    return gone;
  }
}
