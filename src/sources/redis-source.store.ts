import type { Result } from 'ioredis';
import { redisCall } from '../kernel/store/redis/redis.connection';
import type { RedisDatabase } from '../kernel/store/redis/redis.database';
import { RedisKeys } from '../kernel/store/redis/redis.keys';
import { CreateOutcome, SourceRecord, SourceStore, StoredSource } from './source.store';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    tisCreateSource(...args: string[]): Result<string | number, Context>;
    tisUpdateSource(...args: string[]): Result<number, Context>;
    tisRemoveSource(...args: string[]): Result<number, Context>;
  }
}

const KEYS = [RedisKeys.sources, RedisKeys.sourcesRevision];

/** KEYS: the sources' hash, the revision. Each write moves the revision on in the same step. */
const SCRIPTS = {
  /** ARGV: name, max, record JSON. */
  tisCreateSource: {
    numberOfKeys: 2,
    lua: `
      if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 'taken' end
      if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[2]) then return 'full' end
      local version = redis.call('INCR', KEYS[2])
      redis.call('HSET', KEYS[1], ARGV[1], version .. ' ' .. ARGV[3])
      return version`,
  },
  /** ARGV: name, record JSON. */
  tisUpdateSource: {
    numberOfKeys: 2,
    lua: `
      if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
      local version = redis.call('INCR', KEYS[2])
      redis.call('HSET', KEYS[1], ARGV[1], version .. ' ' .. ARGV[2])
      return version`,
  },
  /** ARGV: name. */
  tisRemoveSource: {
    numberOfKeys: 2,
    lua: `
      if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
      redis.call('INCR', KEYS[2])
      return 1`,
  },
};

/**
 * Sources made through the API in Redis: one hash, name -> `<version> <record JSON>` (the version
 * is the revision its write moved to), and the revision beside it, both in the `{sources}` slot.
 */
export class RedisSourceStore extends SourceStore {
  constructor(private readonly redis: RedisDatabase) {
    super();
    redis.define(SCRIPTS);
  }

  async create(record: SourceRecord, max: number): Promise<CreateOutcome> {
    const outcome = await this.redis.durable<string | number>((p) =>
      p.tisCreateSource(...KEYS, record.name, String(max), encode(record)),
    );
    return outcome === 'taken' || outcome === 'full' ? outcome : Number(outcome);
  }

  async update(record: SourceRecord): Promise<number | undefined> {
    const version = await this.redis.durable<number>((p) =>
      p.tisUpdateSource(...KEYS, record.name, encode(record)),
    );
    return version === 0 ? undefined : version;
  }

  async remove(name: string): Promise<boolean> {
    return (await this.redis.durable<number>((p) => p.tisRemoveSource(...KEYS, name))) === 1;
  }

  async list(): Promise<StoredSource[]> {
    const all = await redisCall(this.redis.client.hgetall(RedisKeys.sources));
    return Object.entries(all)
      .map(([name, value]) => {
        const space = value.indexOf(' ');
        const record = JSON.parse(value.slice(space + 1)) as Omit<StoredSource, 'name' | 'version'>;
        return { ...record, name, version: Number(value.slice(0, space)) };
      })
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  async revision(): Promise<number> {
    return Number((await redisCall(this.redis.client.get(RedisKeys.sourcesRevision))) ?? 0);
  }
}

function encode({ fields, sealed, created_at, updated_at }: SourceRecord): string {
  return JSON.stringify({ fields, sealed, created_at, updated_at });
}
