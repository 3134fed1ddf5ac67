import type { HostPort, ParsedEnvironment } from './environment.schema';
import { SettingsError } from './settings.error';

export type { HostPort };

/** Where the shared state lives: one Redis, a master behind Sentinels, or a Redis Cluster. */
export type RedisTopology =
  | { mode: 'single'; url: string }
  | { mode: 'sentinel'; sentinels: HostPort[]; name: string; sentinelPassword?: string }
  | { mode: 'cluster'; nodes: HostPort[] };

export type RedisMode = RedisTopology['mode'];

export type RedisSettings = RedisTopology & {
  /** REDIS_PASSWORD: of the data nodes (a password in REDIS_URL wins). */
  password?: string;
  /** Replicas that must acknowledge a key or configuration write (WAIT, 500 ms) before it answers. */
  waitReplicas: number;
};

/** The variables that choose a topology; at most one may be set. */
const TOPOLOGY_VARIABLES = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const;

function topologyFrom(env: ParsedEnvironment): RedisTopology | undefined {
  const set = TOPOLOGY_VARIABLES.filter((name) => env[name] !== undefined);
  if (set.length > 1) {
    throw new SettingsError(
      `Invalid environment: ${set.slice(0, -1).join(', ')} and ${set.at(-1)} are ${set.length === 2 ? 'both' : 'all'} set; set at most one of ${TOPOLOGY_VARIABLES.join(', ')}`,
    );
  }
  if (env.REDIS_URL) return { mode: 'single', url: env.REDIS_URL };
  if (env.REDIS_SENTINELS) {
    return {
      mode: 'sentinel',
      sentinels: env.REDIS_SENTINELS,
      name: env.REDIS_SENTINEL_NAME,
      sentinelPassword: env.REDIS_SENTINEL_PASSWORD,
    };
  }
  if (env.REDIS_CLUSTER_NODES) return { mode: 'cluster', nodes: env.REDIS_CLUSTER_NODES };
  return undefined;
}

/**
 * The Redis settings of the parsed environment, or undefined for the embedded store.
 * REDIS_WAIT_REPLICAS defaults to 1 under Sentinel (a failover must not lose a key or a
 * configuration change) and to 0 otherwise.
 */
export function redisSettingsFrom(env: ParsedEnvironment): RedisSettings | undefined {
  const topology = topologyFrom(env);
  if (!topology) return undefined;
  return {
    ...topology,
    password: env.REDIS_PASSWORD,
    waitReplicas: env.REDIS_WAIT_REPLICAS ?? (topology.mode === 'sentinel' ? 1 : 0),
  };
}

/** Where the data is, for logs and operators: never a password. */
export function describeRedisTarget(redis: RedisTopology): string {
  const list = (nodes: HostPort[]) =>
    nodes
      .map((n) => (n.host.includes(':') ? `[${n.host}]:${n.port}` : `${n.host}:${n.port}`))
      .join(',');
  if (redis.mode === 'sentinel')
    return `Sentinel master '${redis.name}' via ${list(redis.sentinels)}`;
  if (redis.mode === 'cluster') return `Redis Cluster via ${list(redis.nodes)}`;
  return redactRedisUrl(redis.url);
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
