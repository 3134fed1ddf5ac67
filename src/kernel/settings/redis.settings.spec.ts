import { describeRedisTarget, redactRedisUrl } from './redis.settings';
import { loadSettings, SettingsError } from './settings';

const load = (env: Record<string, string>) => loadSettings(env);

describe('Redis settings', () => {
  it('is the embedded store without any Redis variable', () => {
    expect(load({}).redis).toBeUndefined();
    // A Sentinel name or wait count alone (as .env.example lists them) chooses nothing.
    expect(
      load({ REDIS_SENTINEL_NAME: 'mymaster', REDIS_WAIT_REPLICAS: '1' }).redis,
    ).toBeUndefined();
  });

  it.each([
    [{ REDIS_URL: 'redis://a:6379', REDIS_SENTINELS: 'b:26379' }, 'REDIS_URL and REDIS_SENTINELS'],
    [
      { REDIS_URL: 'redis://a:6379', REDIS_CLUSTER_NODES: 'b:7000' },
      'REDIS_URL and REDIS_CLUSTER_NODES',
    ],
    [
      { REDIS_SENTINELS: 'a:26379', REDIS_CLUSTER_NODES: 'b:7000' },
      'REDIS_SENTINELS and REDIS_CLUSTER_NODES',
    ],
    [
      { REDIS_URL: 'redis://a', REDIS_SENTINELS: 'b:1', REDIS_CLUSTER_NODES: 'c:2' },
      'REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES are all set',
    ],
  ])('refuses two topologies at once, naming both: %j', (env, named) => {
    expect(() => load(env)).toThrow(SettingsError);
    expect(() => load(env)).toThrow(`Invalid environment: ${named}`);
    expect(() => load(env)).toThrow(
      /set at most one of REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES$/,
    );
  });

  it('reads Sentinels, the master group (default mymaster) and both passwords', () => {
    const settings = load({
      REDIS_SENTINELS: 'sentinel-1:26379,sentinel-2:26380 , [fe80::1]:26381',
      REDIS_PASSWORD: 'p1',
      REDIS_SENTINEL_PASSWORD: 'p2',
    });
    expect(settings.redis).toEqual({
      mode: 'sentinel',
      sentinels: [
        { host: 'sentinel-1', port: 26379 },
        { host: 'sentinel-2', port: 26380 },
        { host: 'fe80::1', port: 26381 },
      ],
      name: 'mymaster',
      password: 'p1',
      sentinelPassword: 'p2',
      waitReplicas: 1,
    });
    expect(load({ REDIS_SENTINELS: 'a:1', REDIS_SENTINEL_NAME: 'cache-1' }).redis).toMatchObject({
      name: 'cache-1',
    });
  });

  it('waits for one replica under Sentinel and for none otherwise, unless told', () => {
    expect(load({ REDIS_URL: 'redis://a:6379' }).redis?.waitReplicas).toBe(0);
    expect(load({ REDIS_CLUSTER_NODES: 'a:7000' }).redis?.waitReplicas).toBe(0);
    expect(load({ REDIS_SENTINELS: 'a:1', REDIS_WAIT_REPLICAS: '0' }).redis?.waitReplicas).toBe(0);
    expect(load({ REDIS_CLUSTER_NODES: 'a:1', REDIS_WAIT_REPLICAS: '2' }).redis?.waitReplicas).toBe(
      2,
    );
  });

  it.each([
    ['REDIS_SENTINELS', 'localhost'],
    ['REDIS_SENTINELS', 'a:0'],
    ['REDIS_SENTINELS', 'a:70000'],
    ['REDIS_SENTINELS', ' , '],
    ['REDIS_CLUSTER_NODES', 'a:7000,b'],
    ['REDIS_CLUSTER_NODES', 'redis://a:7000'],
    ['REDIS_WAIT_REPLICAS', '-1'],
    ['REDIS_WAIT_REPLICAS', 'one'],
    ['REDIS_SENTINEL_NAME', 'my master'],
    ['REDIS_URL', 'http://a:6379'],
  ])('refuses %s=%j with a message naming it', (name, value) => {
    // The variable alone, or beside REDIS_SENTINELS for those that only matter with it.
    const alone = name === 'REDIS_URL' || name === 'REDIS_CLUSTER_NODES';
    const env: Record<string, string> = alone
      ? { [name]: value }
      : { REDIS_SENTINELS: 'a:26379', [name]: value };
    expect(() => load(env)).toThrow(new RegExp(`^Invalid environment: ${name} `));
  });

  it.each(['tis{a}:', '{tis}', 'a b', ''])(
    'refuses the key prefix %j (a brace would break hash tags)',
    (prefix) => {
      expect(() => load({ REDIS_KEY_PREFIX: prefix })).toThrow(
        /^Invalid environment: REDIS_KEY_PREFIX /,
      );
    },
  );

  it('describes each topology for logs without a password', () => {
    expect(redactRedisUrl('redis://user:s3cret@cache:6380/2')).toBe(
      'redis://user:****@cache:6380/2',
    );
    expect(redactRedisUrl('rediss://cache:6379')).toBe('rediss://cache:6379');
    expect(redactRedisUrl('not a url')).not.toContain('not a url');
    const sentinel = load({
      REDIS_SENTINELS: 'a:1,[::1]:2',
      REDIS_PASSWORD: 'x',
      REDIS_SENTINEL_PASSWORD: 'y',
    });
    expect(describeRedisTarget(sentinel.redis!)).toBe("Sentinel master 'mymaster' via a:1,[::1]:2");
    const cluster = load({ REDIS_CLUSTER_NODES: 'a:7000,b:7001', REDIS_PASSWORD: 'x' });
    expect(describeRedisTarget(cluster.redis!)).toBe('Redis Cluster via a:7000,b:7001');
  });
});
