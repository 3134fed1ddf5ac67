import { Logger } from '@nestjs/common';
import Redis, { Cluster, ClusterOptions, RedisOptions, ReplyError } from 'ioredis';
import { plural } from '../../common/text';
import { describeRedisTarget, RedisSettings } from '../../settings/redis.settings';
import type { Settings } from '../../settings/settings';
import { StoreUnavailableError } from '../store';

/**
 * A connection to the shared state, whatever the topology: ioredis's `Redis` (one server, or the
 * master that Sentinels name) or its `Cluster`. Both have the same command API, scripts and
 * pipelines; the store and the throttler are written against this type.
 */
export type RedisClient = Redis | Cluster;

/** The process's one Redis command connection (null without Redis): the store and the throttler share it. */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/**
 * One connection attempt gives up after this long, and so does a connection that has commands
 * waiting and has received nothing for this long: callers answer 503 rather than wait.
 */
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
  /^(LOADING|MISCONF|READONLY|OOM|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|NOAUTH|WRONGPASS|NOPERM|NOREPLICAS)\b/;

/** Commands sent as soon as they are called: each already carries a whole round's calls. */
const AUTO_PIPELINING_IGNORED = ['tisCountCalls'];

const reconnectDelay = (attempt: number) => Math.min(50 * 2 ** attempt, MAX_RECONNECT_DELAY_MS);

/** What every connection to a data node shares, whatever the topology. */
function nodeOptions(redis: RedisSettings, role: string): RedisOptions {
  return {
    password: redis.password,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // One timer per connection, not one per command as ioredis's commandTimeout makes (see
    // docs/performance.md): a server that answers nothing for this long is dropped with every
    // command waiting on it, which fail (503), and the connection starts over.
    socketTimeout: COMMAND_TIMEOUT_MS,
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    connectionName: `tis-${role}`,
  };
}

/**
 * Options of a single-server or Sentinel connection, in one place for every connection of the process.
 * - No offline queue and no retry of a sent command: while Redis is away every call fails at once
 *   (503), nothing piles up in memory, and a quota increment is never sent twice.
 * - `retryStrategy` always returns a delay: the connection comes back by itself when Redis does.
 * - Under Sentinel each (re)connection asks the Sentinels for the master and checks its role, so a
 *   failover is followed without a restart; a READONLY reply (the master was demoted under an open
 *   connection) drops the connection so that the next attempt asks the Sentinels again.
 */
export function redisOptions(
  settings: Pick<Settings, 'redis' | 'redisKeyPrefix'>,
  role = 'commands',
): RedisOptions {
  const redis = requireRedis(settings);
  const options: RedisOptions = {
    ...nodeOptions(redis, role),
    keyPrefix: settings.redisKeyPrefix,
    enableOfflineQueue: false,
    retryStrategy: reconnectDelay,
    // Commands of concurrent calls go out together, one write a round of the event loop. The call
    // counter gathers its calls a round itself: its script goes out at once.
    enableAutoPipelining: true,
    autoPipeliningIgnoredCommands: AUTO_PIPELINING_IGNORED,
  };
  if (redis.mode !== 'sentinel') return options;
  return {
    ...options,
    sentinels: redis.sentinels,
    name: redis.name,
    role: 'master',
    sentinelPassword: redis.sentinelPassword,
    sentinelRetryStrategy: reconnectDelay,
    sentinelCommandTimeout: COMMAND_TIMEOUT_MS,
    reconnectOnError: (error: Error) => /^READONLY\b/.test(error.message),
  };
}

/**
 * Options of a Cluster client, with the same failure semantics: no offline queue, and no resending
 * after a lost connection (`retryDelayOnFailover: 0`) or a CLUSTERDOWN; only redirections (MOVED,
 * ASK) and TRYAGAIN are followed, since Redis did not run the command then. The slot map is
 * refreshed after a MOVED and every 5 s.
 */
export function clusterOptions(
  settings: Pick<Settings, 'redis' | 'redisKeyPrefix'>,
  role = 'commands',
): ClusterOptions {
  const redis = requireRedis(settings);
  return {
    keyPrefix: settings.redisKeyPrefix,
    lazyConnect: true,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    autoPipeliningIgnoredCommands: AUTO_PIPELINING_IGNORED,
    clusterRetryStrategy: reconnectDelay,
    retryDelayOnFailover: 0,
    retryDelayOnClusterDown: 0,
    slotsRefreshTimeout: CONNECT_TIMEOUT_MS,
    redisOptions: nodeOptions(redis, role),
  };
}

function requireRedis(settings: Pick<Settings, 'redis'>): RedisSettings {
  if (!settings.redis)
    throw new Error('A Redis connection needs REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES');
  return settings.redis;
}

/**
 * A connection that never takes the process down: ioredis reports failures as 'error' events, which
 * would crash an emitter without listeners. Each distinct failure is logged once per outage, at warn,
 * naming the server, Sentinels or cluster without a password.
 */
export function createRedisClient(settings: Settings, role: string): RedisClient {
  const redis = requireRedis(settings);
  const client =
    redis.mode === 'cluster'
      ? new Cluster(redis.nodes, clusterOptions(settings, role))
      : redis.mode === 'sentinel'
        ? new Redis(redisOptions(settings, role))
        : new Redis(redis.url, redisOptions(settings, role));
  const logger = new Logger(`Redis:${role}`);
  const where = describeRedisTarget(redis);
  let up = false;
  let lastFailure: string | undefined;
  const failed = (message: string) => {
    if (message === lastFailure) return;
    lastFailure = message;
    logger.warn(`Redis at ${where}: ${message}`);
  };
  client.on('reconnecting', () => {
    if (up) logger.warn(`Redis at ${where}: connection lost; reconnecting`);
    up = false;
  });
  client.on('error', (error: Error) => failed(error.message));
  // A Cluster reports each node's failures apart; they are as worth a line as the cluster's own.
  client.on('node error', (error: Error, node: string) => failed(`node ${node}: ${error.message}`));
  // A Cluster opens a node's connection on its first command, and without an offline queue every
  // other command sent to that node while it connects fails: connect each node as soon as it is known.
  client.on('+node', (node: Redis) => {
    forgetSocketTimerOnClose(node);
    if (node.status === 'wait') node.connect().catch(() => undefined);
  });
  if (client instanceof Redis) forgetSocketTimerOnClose(client);
  client.on('ready', () => {
    if (lastFailure !== undefined) logger.log(`Redis at ${where} is reachable again`);
    up = true;
    lastFailure = undefined;
  });
  return client;
}

/**
 * ioredis 5 arms `socketTimeout`'s timer on a connection and clears it only when data arrives, so
 * the timer of a connection that closed first (a server killed with commands waiting) outlives
 * it, fires within 3 s and destroys whatever connection the client has then: the new one, made
 * after the loss (a Sentinel failover's new master). The timer is dropped when its connection
 * closes; the next command on the new connection arms one of its own. This is ioredis#2147, fixed
 * in ioredis 6.0.0; this goes when the service moves to that major version (a change of its own).
 */
function forgetSocketTimerOnClose(connection: Redis): void {
  const timers = connection as unknown as { socketTimeoutTimer?: NodeJS.Timeout };
  connection.on('close', () => {
    clearTimeout(timers.socketTimeoutTimer);
    timers.socketTimeoutTimer = undefined;
  });
}

/**
 * Connects a lazy client and waits until it is ready, at most STARTUP_WAIT_MS; throws
 * StoreUnavailableError. A Cluster is ready once it knows the slots; its masters' connections are
 * waited for too, so that the first commands do not meet a node still connecting.
 */
export async function connectRedis(
  client: RedisClient,
  timeoutMs = STARTUP_WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const failure = `Redis did not become reachable within ${plural(timeoutMs / 1000, 'second')}`;
  await untilReady(client, timeoutMs, failure);
  if (client instanceof Cluster) {
    const masters = client.nodes('master');
    await Promise.all(masters.map((node) => untilReady(node, deadline - Date.now(), failure)));
  }
}

async function untilReady(client: RedisClient, timeoutMs: number, failure: string): Promise<void> {
  if (client.status === 'ready') return;
  if (client.status === 'wait') client.connect().catch(() => undefined); // the first failure; retries go on
  let onReady: () => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      onReady = resolve;
      client.once('ready', onReady);
      timer = setTimeout(() => reject(new StoreUnavailableError(failure)), Math.max(0, timeoutMs));
    });
  } finally {
    clearTimeout(timer);
    client.off('ready', onReady);
  }
}

/** Closes a connection politely when it is up, at once otherwise. */
export async function closeRedis(client: RedisClient): Promise<void> {
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

/** `INFO` text as name -> value. */
export function parseInfo(info: string): Record<string, string> {
  const entries = info
    .split(/\r?\n/)
    .filter((line) => line.includes(':') && !line.startsWith('#'))
    .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]);
  return Object.fromEntries(entries) as Record<string, string>;
}
