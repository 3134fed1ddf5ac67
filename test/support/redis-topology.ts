import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Redis, { Cluster } from 'ioredis';
import { parseInfo } from '../../src/kernel/store/redis/redis.connection';
import { freePort, RedisServer } from './redis';

const run = promisify(execFile);

/** The master group every test Sentinel watches (REDIS_SENTINEL_NAME's default). */
export const MASTER_NAME = 'mymaster';

/** Polls until the check holds; fails after a bounded wait instead of hanging. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet: a server starting or failing over refuses for a moment
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A short-lived admin connection to one server (no key prefix, no retries). */
export async function withNode<T>(
  port: number,
  password: string | undefined,
  work: (node: Redis) => Promise<T>,
): Promise<T> {
  const node = new Redis({
    port,
    host: '127.0.0.1',
    password,
    lazyConnect: true,
    retryStrategy: () => null,
  });
  node.on('error', () => undefined);
  try {
    await node.connect();
    return await work(node);
  } finally {
    node.disconnect();
  }
}

export interface SentinelTimings {
  /** How long a master must not answer before a Sentinel deems it down. */
  downAfterMs: number;
  failoverTimeoutMs: number;
}

/**
 * One master, one replica and three Sentinels (quorum 2), every one a real redis-server on a free
 * loopback port, with passwords on the data nodes and on the Sentinels. The short timings of the
 * failover test come from `timings`; the shared topology of the matrix run waits longer, so that a
 * loaded machine never fails it over by accident.
 */
export class SentinelTopology {
  private constructor(
    readonly master: RedisServer,
    readonly replica: RedisServer,
    readonly sentinels: RedisServer[],
    readonly password: string,
    readonly sentinelPassword: string,
  ) {}

  static async start(
    timings: SentinelTimings = { downAfterMs: 5000, failoverTimeoutMs: 10_000 },
    password = 'data-node-secret',
    sentinelPassword = 'sentinel-secret',
  ): Promise<SentinelTopology> {
    const started: RedisServer[] = [];
    try {
      const master = await RedisServer.start({ password });
      started.push(master);
      const replica = await RedisServer.start({
        password,
        args: ['--replicaof', '127.0.0.1', String(master.port)],
      });
      started.push(replica);
      const config = [
        `requirepass ${sentinelPassword}`,
        `sentinel sentinel-pass ${sentinelPassword}`,
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${master.port} 2`,
        `sentinel auth-pass ${MASTER_NAME} ${password}`,
        `sentinel down-after-milliseconds ${MASTER_NAME} ${timings.downAfterMs}`,
        `sentinel failover-timeout ${MASTER_NAME} ${timings.failoverTimeoutMs}`,
        `sentinel parallel-syncs ${MASTER_NAME} 1`,
        '',
      ].join('\n');
      const sentinels = await Promise.all(
        [0, 1, 2].map(() => RedisServer.start({ sentinelConfig: config })),
      );
      started.push(...sentinels);
      const topology = new SentinelTopology(master, replica, sentinels, password, sentinelPassword);
      await topology.settled();
      return topology;
    } catch (error) {
      await Promise.all(started.map((server) => server.destroy()));
      throw error;
    }
  }

  /** The variables that point an app at this topology. */
  env(): Record<string, string> {
    return {
      REDIS_SENTINELS: this.sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
      REDIS_PASSWORD: this.password,
      REDIS_SENTINEL_PASSWORD: this.sentinelPassword,
    };
  }

  private sentinel<T>(index: number, work: (s: Redis) => Promise<T>): Promise<T> {
    return withNode(this.sentinels[index].port, this.sentinelPassword, work);
  }

  /** The port of the master the Sentinels name now. */
  async masterPort(index = 0): Promise<number> {
    const address = (await this.sentinel(index, (s) =>
      s.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME),
    )) as [string, string];
    return Number(address[1]);
  }

  /**
   * Ready for a failover: the replica is in sync and every Sentinel knows it and the two others
   * (they find each other through the master within a few seconds).
   */
  async settled(): Promise<void> {
    await until(
      () =>
        withNode(
          this.replica.port,
          this.password,
          async (r) => parseInfo(await r.info('replication')).master_link_status === 'up',
        ),
      'the replica in sync',
    );
    for (let i = 0; i < this.sentinels.length; i++) {
      await until(async () => {
        const master = (await this.sentinel(i, (s) =>
          s.call('SENTINEL', 'MASTER', MASTER_NAME),
        )) as string[];
        const fields = Object.fromEntries(
          master.flatMap((v, j) => (j % 2 ? [] : [[v, master[j + 1]]])),
        ) as Record<string, string>;
        return fields['num-slaves'] === '1' && fields['num-other-sentinels'] === '2';
      }, `Sentinel ${i} knowing the replica and the other Sentinels`);
    }
  }

  /** Kills the master (SIGKILL) and waits until every Sentinel names the replica instead. */
  async failOver(): Promise<void> {
    await this.master.kill();
    for (let i = 0; i < this.sentinels.length; i++) {
      await until(
        async () => (await this.masterPort(i)) === this.replica.port,
        `Sentinel ${i} naming the promoted replica`,
      );
    }
  }

  async destroy(): Promise<void> {
    await Promise.all(
      [...this.sentinels, this.replica, this.master].map((server) => server.destroy()),
    );
  }
}

/**
 * A Redis Cluster of three masters (no replicas), built by `redis-cli --cluster create` from three
 * redis-servers on free loopback ports (each with its bus on a free port of its own), with a password.
 */
export class ClusterTopology {
  private constructor(
    readonly nodes: RedisServer[],
    readonly password: string,
  ) {}

  static async start(password = 'cluster-secret'): Promise<ClusterTopology> {
    const nodes: RedisServer[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const args = ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'];
        args.push('--cluster-node-timeout', '5000', '--cluster-port', String(await freePort()));
        nodes.push(await RedisServer.start({ password, args }));
      }
      const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
      await run(
        'redis-cli',
        ['-a', password, '--no-auth-warning', '--cluster', 'create', ...addresses, '--cluster-yes'],
        { timeout: 60_000 },
      );
      const topology = new ClusterTopology(nodes, password);
      for (const node of nodes) {
        await until(
          () =>
            withNode(
              node.port,
              password,
              async (n) => parseInfo(await n.cluster('INFO')).cluster_state === 'ok',
            ),
          `node ${node.port} seeing the cluster up`,
        );
      }
      return topology;
    } catch (error) {
      await Promise.all(nodes.map((node) => node.destroy()));
      throw error;
    }
  }

  env(): Record<string, string> {
    return {
      REDIS_CLUSTER_NODES: this.nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
      REDIS_PASSWORD: this.password,
    };
  }

  async destroy(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.destroy()));
  }
}

/**
 * A plain client (no key prefix) on whatever Redis an app's environment names: to look at what the
 * service stored, as an operator would with redis-cli.
 */
export function rawRedis(env: Record<string, string>): Redis | Cluster {
  const password = env.REDIS_PASSWORD;
  const nodes = (list: string) =>
    list.split(',').map((entry) => {
      const [host, port] = entry.split(':');
      return { host, port: Number(port) };
    });
  if (env.REDIS_CLUSTER_NODES) {
    return new Cluster(nodes(env.REDIS_CLUSTER_NODES), { redisOptions: { password } });
  }
  if (env.REDIS_SENTINELS) {
    return new Redis({
      sentinels: nodes(env.REDIS_SENTINELS),
      name: env.REDIS_SENTINEL_NAME || MASTER_NAME,
      password,
      sentinelPassword: env.REDIS_SENTINEL_PASSWORD,
    });
  }
  return new Redis(env.REDIS_URL, { password });
}

/** Every key matching `pattern`, on every master (SCAN: what a cluster allows). */
export async function scanKeys(client: Redis | Cluster, pattern: string): Promise<string[]> {
  await client.ping(); // a Cluster knows its masters once connected
  const masters = client instanceof Cluster ? client.nodes('master') : [client];
  const found = await Promise.all(
    masters.map(async (node) => {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        keys.push(...batch);
        cursor = next;
      } while (cursor !== '0');
      return keys;
    }),
  );
  return found.flat();
}
