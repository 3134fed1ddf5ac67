import { KeyStore } from '../../src/subjects/key.store';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { displayPrefix, generateApiKey, hashApiKey } from '../../src/subjects/api-key';
import { bearer, startApp, TestApp } from '../support/app';
import { usingSharedRedis } from '../support/redis';
import { rawRedis, scanKeys } from '../support/redis-topology';

/** Everything the store holds, as text: the SQLite files, or every Redis value under the app's prefix. */
async function storedBytes(t: TestApp): Promise<string> {
  if (!usingSharedRedis()) {
    const files = readdirSync(t.dataDir).filter((f) => f.startsWith('service.db'));
    expect(files).toContain('service.db');
    return files.map((f) => readFileSync(join(t.dataDir, f)).toString('latin1')).join('');
  }
  const redis = rawRedis(t.env);
  try {
    const names = await scanKeys(redis, `${t.env.REDIS_KEY_PREFIX}*`);
    const values = await Promise.all(
      names.map(async (name) => {
        const type = await redis.type(name);
        if (type === 'hash') return JSON.stringify(await redis.hgetall(name));
        if (type === 'string') return (await redis.get(name)) ?? '';
        if (type === 'zset') return (await redis.zrange(name, 0, -1)).join(' ');
        if (type === 'list') return (await redis.lrange(name, 0, -1)).join(' ');
        if (type === 'set') return (await redis.smembers(name)).join(' ');
        return '';
      }),
    );
    return [...names, ...values].join('\n');
  } finally {
    redis.disconnect();
  }
}

describe('authentication and scopes (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  const greet = (headers: Record<string, string> = {}) =>
    t.http().post('/api/v1/services/greet').set(headers).send({ name: 'Alice' });

  it('answers a call without credentials with 401 Not authenticated', async () => {
    const res = await greet();
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Not authenticated' });
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it.each([['Basic dXNlcjpwYXNz'], ['Bearer'], ['Bearer   '], ['sk_abc']])(
    'treats the unusable header %j as no credentials',
    async (header) => {
      const res = await greet({ Authorization: header });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Not authenticated' });
    },
  );

  it.each([[generateApiKey()], ['sk_short'], ['not-a-key'], [`${'x'.repeat(5000)}`]])(
    'answers a wrong key with 401 Invalid API key',
    async (wrong) => {
      const res = await greet(bearer(wrong));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Invalid API key' });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    },
  );

  it('accepts the scheme in any case', async () => {
    const key = await t.createKey({ scope_template: 'standard' });
    const res = await greet({ Authorization: `bEaReR ${key}` });
    expect(res.status).toBe(200);
  });

  it('answers a revoked key with 401 Invalid API key', async () => {
    const key = await t.createKey({ scope_template: 'standard' });
    expect((await greet(bearer(key))).status).toBe(200);
    const { body: keys } = await t.http().get('/api/v1/auth/api-keys').set(bearer(t.adminKey));
    const id = (keys as { id: string; prefix: string }[]).find(
      (k) => k.prefix === displayPrefix(key),
    )!.id;
    const revoked = await t.http().delete(`/api/v1/auth/api-keys/${id}`).set(bearer(t.adminKey));
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id, status: 'revoked' });
    const res = await greet(bearer(key));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid API key' });
  });

  it('answers an expired key with 401 Invalid API key', async () => {
    const key = generateApiKey();
    await t.app.get(KeyStore).insertKey({
      id: 'key_expired0000001',
      name: 'expired',
      prefix: displayPrefix(key),
      hash: hashApiKey(key),
      scopes: ['*'],
      plan: 'free',
      daily_limit: null,
      rate_limit: null,
      created_at: '2020-01-01T00:00:00.000Z',
      expires_at: new Date(Date.now() - 1000).toISOString(),
      revoked_at: null,
      last_used_at: null,
    });
    const res = await greet(bearer(key));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid API key' });
  });

  it('answers a key without services:execute with 403', async () => {
    const key = await t.createKey({ scope_template: 'read_only' });
    const res = await greet(bearer(key));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Insufficient permissions for this operation.' });
  });

  it.each([[['services:*']], [['*']], [['services:execute']]])(
    'lets a key with %j call a tool',
    async (scopes) => {
      const key = await t.createKey({ scopes });
      const res = await greet(bearer(key));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Hello, Alice!', times: 1 });
    },
  );

  it('tells a key about itself on /api/v1/auth/me', async () => {
    const key = await t.createKey({ name: 'me-test', scope_template: 'read_only', plan: 'pro' });
    const res = await t.http().get('/api/v1/auth/me').set(bearer(key));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      key_id: expect.stringMatching(/^key_[0-9a-f]{16}$/),
      name: 'me-test',
      scopes: ['services:read'],
      plan: 'pro',
      auth_method: 'api_key',
      created_at: expect.any(String),
      expires_at: null,
    });
    expect((await t.http().get('/api/v1/auth/me')).status).toBe(401);
  });

  it('never stores a key in the clear: the stored data holds no key text', async () => {
    const keys = [t.adminKey, await t.createKey(), await t.createKey({ scope_template: 'admin' })];
    const stored = await storedBytes(t);
    expect(stored.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(stored).not.toContain(key);
      expect(stored).not.toContain(key.slice(11));
      expect(stored).toContain(hashApiKey(key));
    }
  });

  it('never logs a key', async () => {
    const key = await t.createKey({ scope_template: 'standard' });
    await greet(bearer(key));
    await greet(bearer(`${key.slice(0, -1)}0`));
    expect(t.logs.text()).not.toContain(key.slice(11));
    expect(t.logs.text()).not.toContain(t.adminKey.slice(11));
  });
});
