import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { runCli, CLI_TIMEOUT_MS } from '../support/cli';

/**
 * The first start and the compiled CLI. In `npm test` on SQLite only (it spawns the CLI a dozen
 * times); `npm run test:matrix` runs it on Redis, through Sentinel and on a Cluster.
 */
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
