import { KeyStore } from '../src/store/keys/key.store';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { displayPrefix, generateApiKey, hashApiKey } from '../src/auth/api-key';
import { bearer, startApp, tempDataDir, TestApp } from './support/app';
import { runCli, CLI_TIMEOUT_MS } from './support/cli';
import { usingSharedRedis } from './support/redis';
import { rawRedis, scanKeys } from './support/redis-topology';

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

describe('the first start and the operator CLI (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('wrote the initial admin key to a 0600 file and logged only the file name', async () => {
    const { statSync } = await import('node:fs');
    const file = join(t.dataDir, 'initial-api-key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(t.adminKey).toMatch(/^sk_[0-9a-f]{64}$/);
    expect(t.logs.text()).toContain(file);
    expect(t.logs.text()).not.toContain(t.adminKey);
    const me = await t.http().get('/api/v1/auth/me').set(bearer(t.adminKey));
    expect(me.body).toMatchObject({ scopes: ['*'], plan: 'unlimited' });
  });

  it(
    'creates a key with the CLI that works over HTTP, lists it without secrets, and revokes it',
    async () => {
      const env = { DATA_DIR: t.dataDir };
      const created = await runCli(
        [
          'keys',
          'create',
          '--name',
          'from-cli',
          '--template',
          'standard',
          '--plan',
          'pro',
          '--json',
        ],
        env,
      );
      expect(created.code).toBe(0);
      const out = JSON.parse(created.stdout) as {
        id: string;
        key: string;
        scopes: string[];
        plan: string;
      };
      expect(out).toMatchObject({ scopes: ['services:read', 'services:execute'], plan: 'pro' });
      expect(out.key).toMatch(/^sk_[0-9a-f]{64}$/);

      const call = () =>
        t.http().post('/api/v1/services/greet').set(bearer(out.key)).send({ name: 'CLI' });
      expect((await call()).status).toBe(200);

      const listed = await runCli(['keys', 'list', '--json'], env);
      expect(listed.code).toBe(0);
      expect(listed.stdout).not.toContain(out.key);
      expect(listed.stdout).not.toMatch(/sk_[0-9a-f]{64}/);
      expect(JSON.parse(listed.stdout)).toContainEqual(
        expect.objectContaining({ id: out.id, name: 'from-cli', status: 'active' }),
      );

      const revoked = await runCli(['keys', 'revoke', out.id], env);
      expect(revoked.code).toBe(0);
      const after = await call();
      expect(after.status).toBe(401);
      expect(after.body).toEqual({ detail: 'Invalid API key' });
    },
    CLI_TIMEOUT_MS,
  ); // runs the compiled CLI several times

  it(
    'refuses bad CLI requests with a message and a non-zero exit',
    async () => {
      const env = { DATA_DIR: t.dataDir };
      const unknown = await runCli(['keys', 'revoke', 'key_nope'], env);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('API key not found');
      const badScope = await runCli(['keys', 'create', '--name', 'x', '--scopes', 'root'], env);
      expect(badScope.code).toBe(2);
      expect(badScope.stderr).toContain('root');
      const badLimit = await runCli(
        ['keys', 'create', '--name', 'x', '--daily-limit', 'many'],
        env,
      );
      expect(badLimit.code).toBe(2);
      const badTemplate = await runCli(
        ['keys', 'create', '--name', 'x', '--template', 'nope'],
        env,
      );
      expect(badTemplate.code).toBe(2);
      expect(badTemplate.stderr).toContain("Unknown scope template 'nope'");
      const noName = await runCli(['keys', 'create'], env);
      expect(noName.code).toBe(2);
      expect(noName.stderr).toContain("required option '--name <name>' not specified");
    },
    CLI_TIMEOUT_MS,
  ); // runs the compiled CLI five times

  it('answers --version and --help fast, naming its environment variables', async () => {
    const version = await runCli(['--version'], {});
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = await runCli(['--help'], {});
    expect(help.code).toBe(0);
    for (const name of ['DATA_DIR', 'REDIS_URL', 'CONFIG_FILE', 'MCP_API_KEY', '.env']) {
      expect(help.stdout).toContain(name);
    }
    const create = await runCli(['keys', 'create', '--help'], {});
    expect(create.stdout).toMatch(/--name <name> +a name to recognise the key by \(required\)/);
  });

  it(
    'reads .env in its working directory, the environment winning',
    async () => {
      const cwd = tempDataDir();
      // On the Redis run the store's namespace comes from .env too.
      const redis = Object.entries(t.env).filter(([name]) => name.startsWith('REDIS_'));
      writeFileSync(
        join(cwd, '.env'),
        [
          '# a comment',
          `DATA_DIR=${t.dataDir}`,
          'DEFAULT_PLAN=pro',
          ...redis.map(([name, value]) => `${name}=${value}`),
        ].join('\n'),
      );
      const fromFile = await runCli(['keys', 'create', '--name', 'dotenv', '--json'], {}, '', cwd);
      expect(fromFile.code).toBe(0);
      // DATA_DIR came from .env: the key works on the running app's store.
      const created = JSON.parse(fromFile.stdout) as { key: string; plan: string };
      expect(created.plan).toBe('pro');
      expect((await t.http().get('/api/v1/auth/me').set(bearer(created.key))).status).toBe(200);
      const overridden = await runCli(
        ['keys', 'create', '--name', 'env-wins', '--json'],
        { DEFAULT_PLAN: 'free' },
        '',
        cwd,
      );
      expect((JSON.parse(overridden.stdout) as { plan: string }).plan).toBe('free');
    },
    CLI_TIMEOUT_MS,
  );

  it('stops on an invalid variable with one line naming it, exit 1', async () => {
    const res = await runCli(['keys', 'list'], { DATA_DIR: t.dataDir, TRUST_PROXY: 'maybe' });
    expect(res.code).toBe(1);
    expect(res.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^error: Invalid environment: TRUST_PROXY must be /),
    ]);
  });
});
