import { ReplyError } from 'ioredis';
import { asStoreError, redactRedisUrl, redisOptions } from './redis.connection';
import { StoreUnavailableError } from './store';

describe('Redis connection policy', () => {
  it('hides the password of a URL and keeps the rest', () => {
    expect(redactRedisUrl('redis://user:s3cret@cache:6380/2')).toBe(
      'redis://user:****@cache:6380/2',
    );
    expect(redactRedisUrl('rediss://cache:6379')).toBe('rediss://cache:6379');
    expect(redactRedisUrl('not a url')).not.toContain('not a url');
  });

  it('fails fast instead of queueing, and never stops reconnecting', () => {
    const options = redisOptions({ redisKeyPrefix: 'tis:' });
    expect(options).toMatchObject({
      keyPrefix: 'tis:',
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    const retry = options.retryStrategy as (attempt: number) => number;
    expect([1, 2, 3, 10, 1000].map(retry)).toEqual([100, 200, 400, 1000, 1000]);
  });

  it.each([
    ['a lost connection', new Error('Connection is closed.')],
    ['no connection', new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    ['a timeout', new Error('Command timed out')],
    ['Redis loading its data', new ReplyError('LOADING Redis is loading the dataset in memory')],
    ['Redis refusing writes', new ReplyError('MISCONF Errors writing to the AOF file')],
    ['a wrong password', new ReplyError('WRONGPASS invalid username-password pair')],
  ])('makes %s a StoreUnavailableError (503)', (_, error: Error) => {
    const mapped = asStoreError(error);
    expect(mapped).toBeInstanceOf(StoreUnavailableError);
    expect(mapped.cause).toBe(error);
  });

  it('keeps any other error reply as it is (a bug: 500)', () => {
    const error = new ReplyError('ERR an API key with this id or hash already exists') as Error;
    expect(asStoreError(error)).toBe(error);
  });
});
