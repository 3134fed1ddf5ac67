import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newKeyRecord } from '../../test/support/key-records';
import { RedisServer } from '../../test/support/redis';
import { loadSettings } from '../kernel/settings/settings';
import { RedisDatabase } from '../kernel/store/redis/redis.database';
import { indexMember, RedisKeys } from '../kernel/store/redis/redis.keys';
import { openBackend } from '../kernel/store/store.module';
import type { NewKeyRecord } from './key.store';
import { checkKeyLayout, MAX_CHECKED_KEYS } from './redis-key.integrity';
import { RedisKeyStore } from './redis-key.store';

const key = (i: number, created_at: string): NewKeyRecord =>
  newKeyRecord(i, `key_${String(i).padStart(16, '0')}`, created_at);

describe("Redis keys' layout (doctor's store check)", () => {
  let server: RedisServer;
  let dir: string;
  let redis: RedisDatabase;
  let store: RedisKeyStore;

  beforeAll(async () => {
    server = await RedisServer.start();
    dir = mkdtempSync(join(tmpdir(), 'tis-layout-'));
    const backend = await openBackend(
      loadSettings({ DATA_DIR: dir, REDIS_URL: server.url, REDIS_KEY_PREFIX: 'layout:' }),
    );
    if (backend.kind !== 'redis') throw new Error('Redis expected');
    redis = backend.redis;
    store = new RedisKeyStore(redis);
  });
  // Each test on an empty database, whatever the order they run in.
  beforeEach(() => redis.client.flushdb());
  afterAll(async () => {
    await redis.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names each damaged key: no record, a record lacking fields, no lookup; nothing for sound keys', async () => {
    for (let i = 1; i <= 4; i++) await store.insertKey(key(i, `2026-11-27T08:00:0${i}.000Z`));
    expect(await checkKeyLayout(redis.client)).toEqual([]);

    await redis.client.del(RedisKeys.record(key(1, '').id));
    await redis.client.hdel(RedisKeys.record(key(2, '').id), 'plan', 'scopes');
    await redis.client.del(RedisKeys.hashLookup('hash-3'));
    expect(await checkKeyLayout(redis.client)).toEqual([
      `The key index names ${key(1, '').id}, which has no record`,
      `Key ${key(2, '').id}: its record lacks scopes, plan`,
      `Key ${key(3, '').id}: no lookup leads from its secret's hash to it`,
    ]);
    expect(await store.checkIntegrity()).toHaveLength(3);
  });

  it(`reads the newest ${MAX_CHECKED_KEYS} keys of the index, a page at a time, whatever their number`, async () => {
    // The oldest key lost its record; the newest MAX_CHECKED_KEYS are index entries of keys that
    // lack one too: only those are read, so every problem named is one of theirs.
    await redis.client.zadd(
      RedisKeys.keyIndex,
      0,
      indexMember({ id: 'key_0000000000000000', created_at: '2020-01-01T00:00:00.000Z' }),
    );
    const newer = Array.from({ length: MAX_CHECKED_KEYS }, (_, i) =>
      indexMember({
        id: `key_${String(i + 1).padStart(16, '0')}`,
        created_at: '2026-11-27T08:00:00.000Z',
      }),
    );
    for (let at = 0; at < newer.length; at += 5_000) {
      await redis.client.zadd(
        RedisKeys.keyIndex,
        ...newer.slice(at, at + 5_000).flatMap((m) => [0, m]),
      );
    }
    const problems = await checkKeyLayout(redis.client);
    expect(problems).toHaveLength(MAX_CHECKED_KEYS);
    expect(problems.join('\n')).not.toContain('key_0000000000000000');
  });
});
