import type { Result } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { redisCall } from '../kernel/store/redis/redis.connection';
import type { RedisDatabase } from '../kernel/store/redis/redis.database';
import { RedisKeys } from '../kernel/store/redis/redis.keys';
import { OverrideStore } from './override.store';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    tisWriteOverride(overrides: string, ...args: string[]): Result<number, Context>;
  }
}

/**
 * Overrides in Redis: one hash, and channel `<prefix>config:overrides`: every write is announced
 * there; each instance's subscriber connection calls the override listeners, so a change is seen
 * everywhere at once (on a Cluster, a PUBLISH reaches the subscribers of every node).
 */
export class RedisOverrideStore extends OverrideStore {
  /** Tells this instance's own announcements apart: its listeners were already called. */
  private readonly origin = randomUUID();
  private readonly channel: string;

  private constructor(private readonly redis: RedisDatabase) {
    super();
    this.channel = `${redis.settings.redisKeyPrefix}config:overrides`;
    redis.define({
      /** KEYS: overrides hash. ARGV: channel, origin, field, JSON value (absent: delete). Write and announce as one. */
      tisWriteOverride: {
        numberOfKeys: 1,
        lua: `
      if ARGV[4] then redis.call('HSET', KEYS[1], ARGV[3], ARGV[4]) else redis.call('HDEL', KEYS[1], ARGV[3]) end
      redis.call('PUBLISH', ARGV[1], ARGV[2])
      return 1`,
      },
    });
  }

  /** The store, once its subscriber listens to the channel. */
  static async open(redis: RedisDatabase): Promise<RedisOverrideStore> {
    const store = new RedisOverrideStore(redis);
    await store.subscribe();
    return store;
  }

  private async subscribe(): Promise<void> {
    const { subscriber, client } = this.redis;
    subscriber.on('message', (channel: string, origin: string) => {
      if (channel === this.channel && origin !== this.origin) this.notifyOverridesChanged();
    });
    await redisCall(subscriber.subscribe(this.channel));
    // Announcements made while this subscriber was disconnected are lost: listeners reload once it
    // is back, and the command connection too (a reload reads through it).
    subscriber.on('ready', () => {
      if (client.status === 'ready') this.notifyOverridesChanged();
      else client.once('ready', () => this.notifyOverridesChanged());
    });
  }

  async getOverrides(): Promise<Record<string, unknown>> {
    const stored = await redisCall(this.redis.client.hgetall(RedisKeys.overrides));
    return Object.fromEntries(
      Object.entries(stored).map(([key, value]) => [key, JSON.parse(value) as unknown]),
    );
  }

  async setOverride(key: string, value: unknown): Promise<void> {
    await this.write(key, JSON.stringify(value));
  }

  async deleteOverride(key: string): Promise<void> {
    await this.write(key);
  }

  private async write(key: string, json?: string): Promise<void> {
    const args = [this.channel, this.origin, key, ...(json === undefined ? [] : [json])];
    await this.redis.durable((p) => p.tisWriteOverride(RedisKeys.overrides, ...args));
    this.notifyOverridesChanged();
  }
}
