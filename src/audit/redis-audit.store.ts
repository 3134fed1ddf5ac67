import type { Result } from 'ioredis';
import { redisCall } from '../kernel/store/redis/redis.connection';
import type { RedisDatabase } from '../kernel/store/redis/redis.database';
import { RedisKeys } from '../kernel/store/redis/redis.keys';
import { AuditEntry, AuditStore } from './audit.store';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    tisAppendAudit(
      seq: string,
      log: string,
      entry: string,
      keepSince: string,
    ): Result<number, Context>;
  }
}

/** The audit trail in Redis: an entry counter and a sorted set (score = id), one slot each. */
export class RedisAuditStore extends AuditStore {
  constructor(private readonly redis: RedisDatabase) {
    super();
    redis.define({
      /**
       * KEYS: the entry counter, the log. ARGV: the entry as JSON without its id, the oldest time
       * kept (ISO). Returns the new id; forgets up to 100 old entries a call.
       */
      tisAppendAudit: {
        numberOfKeys: 2,
        lua: `
      local id = redis.call('INCR', KEYS[1])
      local entry = cjson.decode(ARGV[1])
      entry['id'] = id
      redis.call('ZADD', KEYS[2], id, cjson.encode(entry))
      for _, old in ipairs(redis.call('ZRANGE', KEYS[2], 0, 99)) do
        if cjson.decode(old)['at'] >= ARGV[2] then break end
        redis.call('ZREM', KEYS[2], old)
      end
      return id`,
      },
    });
  }

  async appendAudit(entry: Omit<AuditEntry, 'id'>, keepSince: string): Promise<AuditEntry> {
    const id = await redisCall(
      this.redis.client.tisAppendAudit(
        RedisKeys.auditSeq,
        RedisKeys.auditLog,
        JSON.stringify(entry),
        keepSince,
      ),
    );
    return { id, ...entry };
  }

  async listAudit(query: { before?: number; limit: number; since: string }): Promise<AuditEntry[]> {
    const max = query.before === undefined ? '+inf' : `(${query.before}`;
    const found = await redisCall(
      this.redis.client.zrevrangebyscore(RedisKeys.auditLog, max, '-inf', 'LIMIT', 0, query.limit),
    );
    return found
      .map((json) => {
        const e = JSON.parse(json) as AuditEntry;
        // Lua's cjson writes an empty table as an object: details stay an object. Entries written
        // before principals name none.
        return { ...e, actor_principal_id: e.actor_principal_id ?? null, details: e.details ?? {} };
      })
      .filter((e) => e.at >= query.since);
  }
}
