import { Logger } from '@nestjs/common';
import Redis, { RedisOptions, ReplyError } from 'ioredis';
import type { Settings } from '../settings/settings';
import { StoreUnavailableError } from './store';

/** The process's one Redis command connection (null without REDIS_URL): the store and the throttler share it. */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/** One connection attempt, and one command, give up after this long: callers answer 503 rather than wait. */
const CONNECT_TIMEOUT_MS = 3_000;
const COMMAND_TIMEOUT_MS = 3_000;
/** Reconnection never stops; attempts back off from 100 ms to this. */
const MAX_RECONNECT_DELAY_MS = 1_000;
/** How long start-up (server or CLI) waits for Redis before giving up. */
const STARTUP_WAIT_MS = 10_000;
/** A closed connection whose socket is already gone holds the process this long (ioredis's default: 2 s). */
const DISCONNECT_TIMEOUT_MS = 200;

/** Replies that mean "Redis cannot serve now" (loading, persistence failing, read-only replica, auth...), not a bug. */
const UNAVAILABLE_REPLY =
  /^(LOADING|MISCONF|READONLY|OOM|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|NOAUTH|WRONGPASS|NOPERM)\b/;

/**
 * Connection options, in one place for every connection of the process.
 * - No offline queue and no retry of a sent command: while Redis is away every call fails at once
 *   (503), nothing piles up in memory, and a quota increment is never sent twice.
 * - `retryStrategy` always returns a delay: the connection comes back by itself when Redis does.
 */
export function redisOptions(settings: Pick<Settings, 'redisKeyPrefix'>): RedisOptions {
  return {
    keyPrefix: settings.redisKeyPrefix,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    retryStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, MAX_RECONNECT_DELAY_MS),
  };
}

/** The URL without its password, for logs and operators. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '****';
    return parsed.toString();
  } catch {
    return 'redis://(unparseable URL)';
  }
}

/**
 * A connection that never takes the process down: ioredis reports failures as 'error' events, which
 * would crash an emitter without listeners. Each distinct failure is logged once per outage, at warn,
 * with the URL's password hidden.
 */
export function createRedisClient(settings: Settings, role: string): Redis {
  const url = settings.redisUrl;
  if (!url) throw new Error('createRedisClient needs REDIS_URL');
  const client = new Redis(url, { ...redisOptions(settings), connectionName: `tis-${role}` });
  const logger = new Logger(`Redis:${role}`);
  const where = redactRedisUrl(url);
  let up = false;
  let lastFailure: string | undefined;
  client.on('reconnecting', () => {
    if (up) logger.warn(`Redis at ${where}: connection lost; reconnecting`);
    up = false;
  });
  client.on('error', (error: Error) => {
    if (error.message === lastFailure) return;
    lastFailure = error.message;
    logger.warn(`Redis at ${where}: ${error.message}`);
  });
  client.on('ready', () => {
    if (lastFailure !== undefined) logger.log(`Redis at ${where} is reachable again`);
    up = true;
    lastFailure = undefined;
  });
  return client;
}

/** Connects a lazy client and waits until it is ready, at most STARTUP_WAIT_MS; throws StoreUnavailableError. */
export async function connectRedis(client: Redis, timeoutMs = STARTUP_WAIT_MS): Promise<void> {
  if (client.status === 'ready') return;
  if (client.status === 'wait') client.connect().catch(() => undefined); // the first failure; retries go on
  let onReady: () => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      onReady = resolve;
      client.once('ready', onReady);
      timer = setTimeout(
        () =>
          reject(
            new StoreUnavailableError(
              `Redis did not become reachable within ${timeoutMs / 1000} seconds`,
            ),
          ),
        timeoutMs,
      );
    });
  } finally {
    clearTimeout(timer);
    client.off('ready', onReady);
  }
}

/** Closes a connection politely when it is up, at once otherwise. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // fall through: the connection went away while quitting
    }
  }
  client.disconnect(false);
}

/**
 * What a failed Redis call means to callers: anything but an ordinary error reply (a connection
 * lost, refused or timed out, Redis loading or refusing writes) is StoreUnavailableError -> 503.
 */
export function asStoreError(error: unknown): Error {
  if (error instanceof StoreUnavailableError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ReplyError && !UNAVAILABLE_REPLY.test(message)) return error as Error;
  return new StoreUnavailableError(`Redis cannot be reached: ${message}`, { cause: error });
}

/** Awaits a Redis call, turning its failure into what callers expect (see asStoreError). */
export async function redisCall<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw asStoreError(error);
  }
}
