import { ReplyError } from 'ioredis';
import { loadSettings } from '../../settings/settings';
import { asStoreError, clusterOptions, redisOptions } from './redis.connection';
import { StoreUnavailableError } from '../store';

describe('Redis connection policy', () => {
  const single = loadSettings({ REDIS_URL: 'redis://127.0.0.1:6379' });

  it('fails fast instead of queueing, and never stops reconnecting', () => {
    const options = redisOptions(single);
    expect(options).toMatchObject({
      keyPrefix: 'tis:',
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    const retry = options.retryStrategy as (attempt: number) => number;
    expect([1, 2, 3, 10, 1000].map(retry)).toEqual([100, 200, 400, 1000, 1000]);
  });

  it('asks the Sentinels for the master, with both passwords, and reconnects on READONLY', () => {
    const settings = loadSettings({
      REDIS_SENTINELS: '10.0.0.1:26379, [::1]:26380',
      REDIS_PASSWORD: 'data-secret',
      REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
    });
    const options = redisOptions(settings);
    expect(options).toMatchObject({
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'mymaster',
      role: 'master',
      password: 'data-secret',
      sentinelPassword: 'sentinel-secret',
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    const reconnect = options.reconnectOnError as (error: Error) => boolean;
    expect(reconnect(new Error("READONLY You can't write against a read only replica."))).toBe(
      true,
    );
    expect(reconnect(new Error('ERR unknown command'))).toBe(false);
    const retry = options.sentinelRetryStrategy as (attempt: number) => number;
    expect(retry(1000)).toBe(1000);
  });

  it('never resends a command to a Cluster after a lost connection or CLUSTERDOWN', () => {
    const settings = loadSettings({
      REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:7000',
      REDIS_PASSWORD: 'data-secret',
    });
    expect(clusterOptions(settings)).toMatchObject({
      keyPrefix: 'tis:',
      enableOfflineQueue: false,
      retryDelayOnFailover: 0,
      retryDelayOnClusterDown: 0,
      redisOptions: { password: 'data-secret', maxRetriesPerRequest: 0 },
    });
  });

  it.each([
    ['a lost connection', new Error('Connection is closed.')],
    ['no connection', new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    [
      'a cluster not ready',
      new Error("Cluster isn't ready and enableOfflineQueue options is false"),
    ],
    ['a timeout', new Error('Command timed out')],
    ['Redis loading its data', new ReplyError('LOADING Redis is loading the dataset in memory')],
    ['Redis refusing writes', new ReplyError('MISCONF Errors writing to the AOF file')],
    ['a wrong password', new ReplyError('WRONGPASS invalid username-password pair')],
    ['too few replicas', new ReplyError('NOREPLICAS Not enough good replicas to write.')],
    ['a cluster down', new ReplyError('CLUSTERDOWN The cluster is down')],
  ])('makes %s a StoreUnavailableError (503)', (_, error: Error) => {
    const mapped = asStoreError(error);
    expect(mapped).toBeInstanceOf(StoreUnavailableError);
    expect(mapped.cause).toBe(error);
  });

  it('keeps any other error reply as it is (a bug: 500)', () => {
    const error = new ReplyError('ERR an API key with this id already exists') as Error;
    expect(asStoreError(error)).toBe(error);
  });
});
