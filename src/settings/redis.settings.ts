import { SettingsError } from './settings.error';

/** The process environment (as settings.ts reads it). */
type Environment = Record<string, string | undefined>;

/** A Redis node or Sentinel as the environment names it. */
export interface HostPort {
  host: string;
  port: number;
}

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

/** `host:port` or `[v6]:port`, comma-separated; at least one. */
function parseHostPorts(name: string, raw: string): HostPort[] {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (!entries.length) {
    throw new SettingsError(`Invalid environment: ${name} must list host:port entries`);
  }
  return entries.map((entry) => {
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._-]+)):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[3]);
    if (!match || port < 1 || port > 65535) {
      throw new SettingsError(
        `Invalid environment: ${name} entries must be host:port (port 1-65535), got '${entry}'`,
      );
    }
    return { host: match[1] ?? match[2], port };
  });
}

function waitReplicasFrom(env: Environment, fallback: number): number {
  const raw = env.REDIS_WAIT_REPLICAS;
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,2}$/.test(raw.trim())) {
    throw new SettingsError(
      `Invalid environment: REDIS_WAIT_REPLICAS must be a whole number from 0 to 99, got '${raw}'`,
    );
  }
  return Number(raw);
}

function topologyFrom(env: Environment): RedisTopology | undefined {
  const set = TOPOLOGY_VARIABLES.filter((name) => env[name]);
  if (set.length > 1) {
    throw new SettingsError(
      `Invalid environment: ${set.slice(0, -1).join(', ')} and ${set.at(-1)} are ${set.length === 2 ? 'both' : 'all'} set; set at most one of ${TOPOLOGY_VARIABLES.join(', ')}`,
    );
  }
  if (env.REDIS_URL) {
    if (!/^rediss?:\/\//.test(env.REDIS_URL)) {
      throw new SettingsError(
        `Invalid environment: REDIS_URL must start with redis:// or rediss://`,
      );
    }
    return { mode: 'single', url: env.REDIS_URL };
  }
  if (env.REDIS_SENTINELS) {
    const name = env.REDIS_SENTINEL_NAME || 'mymaster';
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) {
      throw new SettingsError(
        `Invalid environment: REDIS_SENTINEL_NAME must be 1 to 64 of letters, digits and '._-', got '${name}'`,
      );
    }
    return {
      mode: 'sentinel',
      sentinels: parseHostPorts('REDIS_SENTINELS', env.REDIS_SENTINELS),
      name,
      sentinelPassword: env.REDIS_SENTINEL_PASSWORD || undefined,
    };
  }
  if (env.REDIS_CLUSTER_NODES) {
    return {
      mode: 'cluster',
      nodes: parseHostPorts('REDIS_CLUSTER_NODES', env.REDIS_CLUSTER_NODES),
    };
  }
  return undefined;
}

/**
 * The Redis settings, or undefined for the embedded store. REDIS_WAIT_REPLICAS defaults to 1 under
 * Sentinel (a failover must not lose a key or a configuration change) and to 0 otherwise.
 */
export function loadRedisSettings(env: Environment): RedisSettings | undefined {
  const topology = topologyFrom(env);
  if (!topology) return undefined;
  return {
    ...topology,
    password: env.REDIS_PASSWORD || undefined,
    waitReplicas: waitReplicasFrom(env, topology.mode === 'sentinel' ? 1 : 0),
  };
}

/**
 * REDIS_KEY_PREFIX: no braces, since the key layout puts a Cluster hash tag (`{...}`) right after
 * the prefix, and a brace in the prefix would become the tag of every key.
 */
export function loadRedisKeyPrefix(env: Environment): string {
  const prefix = env.REDIS_KEY_PREFIX ?? 'tis:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(prefix)) {
    throw new SettingsError(
      `Invalid environment: REDIS_KEY_PREFIX must be 1 to 64 of letters, digits and ':_.-' (no braces: they would break Cluster hash tags), got '${prefix}'`,
    );
  }
  return prefix;
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
