import Redis, { ChainableCommander, Cluster } from 'ioredis';
import { describeRedisTarget } from '../../settings/redis.settings';
import type { Settings } from '../../settings/settings';
import { Store, StoreTopology, StoreUnavailableError } from '../store';
import {
  asStoreError,
  closeRedis,
  connectRedis,
  createRedisClient,
  parseInfo,
  RedisClient,
  redisCall,
} from './redis.connection';
import { RedisKeys } from './redis.keys';

/** How long a key or configuration write waits for REDIS_WAIT_REPLICAS replicas: else 503. */
export const WAIT_TIMEOUT_MS = 500;

/** A Lua script as ioredis's `defineCommand` takes it. */
export interface RedisScript {
  /** Absent: the command's first argument says how many keys follow. */
  numberOfKeys?: number;
  lua: string;
}

/**
 * The shared store: all state in Redis, so several instances serve one deployment. One Redis, a
 * master behind Sentinels or a Redis Cluster: the same code on each (the key layout of
 * redis.keys.ts keeps every script on one slot, and nothing uses KEYS or a cross-slot command).
 * What every concern's Redis implementation shares: the command connection and its scripts, a
 * subscriber connection, writes made durable under REDIS_WAIT_REPLICAS, health and integrity.
 *
 * Key and configuration writes are durable under REDIS_WAIT_REPLICAS: each is followed, in the
 * same round trip and on the same node, by `WAIT n 500`, and fewer acknowledgements are a 503.
 * Quota counts, rate windows, last-used times, audit entries and idempotency entries do not wait.
 */
export class RedisDatabase extends Store {
  readonly kind = 'redis' as const;
  private readonly waitReplicas: number;

  private constructor(
    readonly client: RedisClient,
    readonly subscriber: RedisClient,
    readonly settings: Settings,
  ) {
    super();
    this.waitReplicas = settings.redis?.waitReplicas ?? 0;
  }

  /**
   * Connects the given command connection and a subscriber of its own, and waits until both answer.
   * On failure both are closed (no reconnection timers left behind) and StoreUnavailableError is thrown.
   */
  static async open(client: RedisClient, settings: Settings): Promise<RedisDatabase> {
    const subscriber = createRedisClient(settings, 'subscriber');
    const database = new RedisDatabase(client, subscriber, settings);
    try {
      await Promise.all([connectRedis(client), connectRedis(subscriber)]);
      return database;
    } catch (error) {
      await database.close();
      throw error;
    }
  }

  /** A concern's scripts, as commands of the connection and of its pipelines. */
  define(scripts: Record<string, RedisScript>): void {
    for (const [name, script] of Object.entries(scripts)) this.client.defineCommand(name, script);
  }

  private get mode(): StoreTopology['mode'] {
    return this.settings.redis?.mode ?? 'single';
  }

  /** Where the data is: the URL without its password, the Sentinels and the master they name now, or the cluster's seeds. */
  describe(): string {
    const redis = this.settings.redis;
    const where = redis ? describeRedisTarget(redis) : '(no Redis configured)';
    const now =
      this.client instanceof Cluster
        ? `, ${this.client.nodes('master').length} masters and ${this.client.nodes('slave').length} replicas`
        : this.mode === 'sentinel' && this.client.stream?.remoteAddress
          ? `, master now ${this.client.stream.remoteAddress}:${this.client.stream.remotePort}`
          : '';
    return `${where} (key prefix '${this.settings.redisKeyPrefix}'${now})`;
  }

  /**
   * One write, made durable when REDIS_WAIT_REPLICAS asks it: `WAIT` follows in the same pipeline,
   * which on a Cluster goes to the node of the write's slot. Returns the write's reply.
   */
  async durable<T>(write: (pipeline: ChainableCommander) => ChainableCommander): Promise<T> {
    const pipeline = write(this.client.pipeline());
    if (this.waitReplicas > 0) pipeline.wait(this.waitReplicas, WAIT_TIMEOUT_MS);
    const results = (await redisCall(pipeline.exec())) ?? [];
    for (const [error] of results) if (error) throw asStoreError(error);
    if (this.waitReplicas > 0) {
      const acknowledged = Number(results[1]?.[1]);
      if (!(acknowledged >= this.waitReplicas)) {
        throw new StoreUnavailableError(
          `Redis: ${acknowledged} of ${this.waitReplicas} replica(s) acknowledged the write within ${WAIT_TIMEOUT_MS} ms`,
        );
      }
    }
    return results[0]?.[1] as T;
  }

  /** Each master: a Cluster's every master, else the one server the client talks to. */
  masters(): Redis[] {
    return this.client instanceof Cluster ? this.client.nodes('master') : [this.client];
  }

  /** Both connections must be up: without the subscriber, overrides would not reach this instance. */
  async ping(): Promise<void> {
    await redisCall(this.client.ping());
    this.checkSubscriber();
  }

  private checkSubscriber(): void {
    if (this.subscriber.status !== 'ready') {
      throw new StoreUnavailableError('Redis cannot be reached: the subscriber connection is down');
    }
  }

  /**
   * Two commands however many keys there are: a ping (under Sentinel, `INFO replication`, which
   * also says that the server is still the master and how many replicas follow it) and one read
   * (the key index's size). A Cluster's node count is the client's slot map: no command.
   */
  async probe(): Promise<StoreTopology> {
    let nodes = 1;
    if (this.mode === 'sentinel') {
      const info = parseInfo(await redisCall(this.client.info('replication')));
      if (info.role !== 'master') {
        throw new StoreUnavailableError(`Redis: the server named master is a ${info.role}`);
      }
      nodes = 1 + Number(info.connected_slaves ?? 0);
    } else {
      await redisCall(this.client.ping());
      if (this.client instanceof Cluster) nodes = this.client.nodes('all').length;
    }
    await redisCall(this.client.zcard(RedisKeys.keyIndex));
    this.checkSubscriber();
    return { mode: this.mode, nodes };
  }

  /** Whether any master is failing to persist writes (the keys' own layout is KeyStore's check). */
  async checkIntegrity(): Promise<string[]> {
    const problems: string[] = [];
    for (const { node, info } of await this.mastersInfo('persistence')) {
      if (info.aof_last_write_status && info.aof_last_write_status !== 'ok') {
        problems.push(
          `Redis${node} cannot write its AOF file (aof_last_write_status: ${info.aof_last_write_status})`,
        );
      }
      if (info.rdb_last_bgsave_status && info.rdb_last_bgsave_status !== 'ok') {
        problems.push(`The last Redis snapshot (BGSAVE)${node} failed`);
      }
    }
    return problems;
  }

  /**
   * Redis settings that can lose data: no AOF, an eviction policy that may drop keys, or fewer
   * replicas than REDIS_WAIT_REPLICAS (key and configuration writes then answer 503).
   */
  override async durabilityWarnings(): Promise<string[]> {
    const warnings: string[] = [];
    const masters = await this.mastersInfo('persistence', 'memory', 'replication');
    for (const { node, info } of masters) {
      if (info.aof_enabled !== '1') {
        warnings.push(
          `Redis${node} runs without AOF (appendonly no): keys and counts since the last snapshot are lost if Redis stops`,
        );
      }
      const policy = info.maxmemory_policy;
      if (info.maxmemory && info.maxmemory !== '0' && policy && policy !== 'noeviction') {
        warnings.push(
          `Redis${node} may evict keys under memory pressure (maxmemory-policy ${policy}): API keys or quota counters could vanish; use noeviction`,
        );
      }
      const replicas = Number(info.connected_slaves ?? 0);
      if (replicas < this.waitReplicas) {
        warnings.push(
          `Redis${node} has ${replicas} connected replica(s) but REDIS_WAIT_REPLICAS is ${this.waitReplicas}: key and configuration changes answer 503 until a replica follows it`,
        );
      }
    }
    return warnings;
  }

  /** `INFO` sections of each master; on a Cluster each is named (` node host:port`). */
  private async mastersInfo(
    ...sections: string[]
  ): Promise<{ node: string; info: Record<string, string> }[]> {
    const named = this.client instanceof Cluster;
    return Promise.all(
      this.masters().map(async (master) => {
        const texts = await Promise.all(sections.map((s) => redisCall(master.info(s))));
        const node = named ? ` node ${master.options.host}:${master.options.port}` : '';
        return { node, info: parseInfo(texts.join('\n')) };
      }),
    );
  }

  async close(): Promise<void> {
    await Promise.all([closeRedis(this.client), closeRedis(this.subscriber)]);
  }
}
