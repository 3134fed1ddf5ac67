import { OverrideStore } from '../../src/configuration/override.store';
import { KeyStore } from '../../src/subjects/key.store';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Store } from '../../src/kernel/store/store';
import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { runCli, CLI_TIMEOUT_MS } from '../support/cli';
import { HangingCheckModule } from '../support/hanging-check.module';
import { makeReadOnly } from '../support/read-only';

interface Check {
  name: string;
  status: string;
  message: string;
  fixable?: boolean;
  checked_at?: string;
}

const byName = (checks: Check[], name: string) => checks.find((c) => c.name === name)!;

describe('doctor (e2e)', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp();
    key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
  });
  afterAll(() => t.close());

  const doctor = (body?: unknown) => {
    const req = t.http().post('/api/v1/services/doctor').set(bearer(key));
    return body === undefined ? req : req.send(body as object);
  };

  it('runs every check and reports a healthy service', async () => {
    const res = await doctor({});
    expect(res.status).toBe(200);
    expect(res.body.has_failures).toBe(false);
    const checks = res.body.checks as Check[];
    expect(checks.map((c) => c.name)).toEqual([
      'runtime_version',
      'config_file',
      'config_overrides',
      'restart_pending',
      'data_directory',
      'store',
      'cache_directory',
      'api_keys',
      'oauth_issuers',
      'oauth_principals',
      'webhooks',
      'sources',
      'secrets',
      'ledger',
      'disk_space',
    ]);
    for (const check of checks) {
      expect(check).toMatchObject({ status: 'pass', message: expect.any(String) });
    }
    for (const check of checks) {
      // The ledger's check answers its last result between runs: with the time it was found.
      const timed = check.name === 'ledger' ? ['checked_at'] : [];
      expect(Object.keys(check).sort()).toEqual(
        [...timed, ...(check.fixable ? ['fixable'] : []), 'message', 'name', 'status'].sort(),
      );
      expect(['pass', 'warn', 'fail']).toContain(check.status);
    }
    expect(Date.parse(byName(checks, 'ledger').checked_at!)).not.toBeNaN();
    expect(byName(checks, 'store').message).toContain(t.app.get(Store).describe());
  });

  it('answers no body like {}, in the same stable order', async () => {
    const a = await doctor();
    const b = await doctor({});
    expect(a.status).toBe(200);
    expect((a.body.checks as Check[]).map((c) => c.name)).toEqual(
      (b.body.checks as Check[]).map((c) => c.name),
    );
  });

  it('rejects a fix that is not a boolean', async () => {
    const res = await doctor({ fix: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: [{ loc: ['body', 'fix'], msg: 'Input should be a valid boolean', type: 'bool_type' }],
    });
  });

  it('changes nothing when fixing a healthy service', async () => {
    const files = readdirSync(t.dataDir).sort();
    const keys = await t.app.get(KeyStore).listKeys();
    const overrides = await t.app.get(OverrideStore).getOverrides();
    const res = await doctor({ fix: true });
    expect(res.status).toBe(200);
    expect(res.body.has_failures).toBe(false);
    expect(readdirSync(t.dataDir).sort()).toEqual(files);
    expect((await t.app.get(KeyStore).listKeys()).map((k) => [k.id, k.revoked_at])).toEqual(
      keys.map((k) => [k.id, k.revoked_at]),
    );
    expect(await t.app.get(OverrideStore).getOverrides()).toEqual(overrides);
  });

  it('warns about a stored key whose plan is not a plan, and serves it with the default plan', async () => {
    const { id, key: planless } = await t.createKeyWithId({ scope_template: 'standard' });
    // As a key stored before plans were checked as names (or whose plan the operator removed).
    await t.app.get(KeyStore).updateKey(id, { plan: 'constructor' });
    try {
      const check = byName((await doctor({})).body.checks as Check[], 'api_keys');
      expect(check.status).toBe('warn');
      expect(check.message).toContain(`${id} (plan "constructor")`);
      expect(check.message).toContain("default plan's (free) limits");
      const call = await t
        .http()
        .post('/api/v1/services/greet')
        .set(bearer(planless))
        .send({ name: 'A' });
      expect(call.status).toBe(200);
      expect(call.headers['x-ratelimit-policy']).toBe('5;w=1;burst=15');
      expect(call.headers['x-quota-limit']).toBe('100');
    } finally {
      await t.app.get(KeyStore).updateKey(id, { plan: 'free' });
    }
    expect(byName((await doctor({})).body.checks as Check[], 'api_keys').status).toBe('pass');
  });

  it('fails data_directory when the data directory refuses new files', async () => {
    const undo = makeReadOnly(t.dataDir);
    if (!undo) return console.warn('skipped: this machine cannot make a directory read-only');
    try {
      const res = await doctor({});
      expect(res.status).toBe(200);
      expect(res.body.has_failures).toBe(true);
      const check = byName(res.body.checks, 'data_directory');
      expect(check.status).toBe('fail');
      expect(check.message).toContain(`Data directory ${t.dataDir} is not writable`);
    } finally {
      undo();
    }
    expect(byName((await doctor({})).body.checks, 'data_directory').status).toBe('pass');
  });
});

describe('doctor thresholds, hangs and a broken store (e2e)', () => {
  it('warns, then fails, when free disk space is under the thresholds', async () => {
    const warnApp = await startApp({ env: { DOCTOR_DISK_WARN_MB: String(1e12) } });
    const failApp = await startApp({ env: { DOCTOR_DISK_FAIL_MB: String(1e12) } });
    try {
      const warned = await warnApp
        .http()
        .post('/api/v1/services/doctor')
        .set(bearer(warnApp.adminKey));
      expect(byName(warned.body.checks, 'disk_space')).toMatchObject({ status: 'warn' });
      expect(warned.body.has_failures).toBe(false);
      const failed = await failApp
        .http()
        .post('/api/v1/services/doctor')
        .set(bearer(failApp.adminKey));
      expect(byName(failed.body.checks, 'disk_space')).toMatchObject({ status: 'fail' });
      expect(byName(failed.body.checks, 'disk_space').message).toMatch(
        /free on the file system of/,
      );
      expect(failed.body.has_failures).toBe(true);
    } finally {
      await warnApp.close();
      await failApp.close();
    }
  });

  it('reports a hanging check as fail within its time limit and still answers', async () => {
    const t = await startApp({
      imports: [HangingCheckModule],
      env: { DOCTOR_CHECK_TIMEOUT_MS: '200' },
    });
    try {
      const res = await t.http().post('/api/v1/services/doctor').set(bearer(t.adminKey)).send({});
      expect(res.status).toBe(200);
      expect(res.body.has_failures).toBe(true);
      const checks = res.body.checks as Check[];
      expect(checks[checks.length - 1].name).toBe('hanging_dependency');
      expect(byName(checks, 'hanging_dependency')).toEqual({
        name: 'hanging_dependency',
        status: 'fail',
        message: 'The check did not finish within 200 ms; whatever it inspects is hanging.',
      });
      expect(byName(checks, 'store').status).toBe('pass');
    } finally {
      await t.close();
    }
  });
});

describe('doctor on the CLI (e2e)', () => {
  it(
    'reports no usable key as not passing and exits 1 when a check fails',
    async () => {
      const t = await startApp();
      const env = { DATA_DIR: t.dataDir };
      let keys: { id: string }[];
      try {
        keys = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as {
          id: string;
        }[];
      } finally {
        await t.close();
      }
      for (const k of keys) expect((await runCli(['keys', 'revoke', k.id], env)).code).toBe(0);
      const ok = await runCli(['doctor', '--json'], env);
      expect(ok.code).toBe(0);
      const report = JSON.parse(ok.stdout) as { checks: Check[]; has_failures: boolean };
      expect(byName(report.checks, 'api_keys')).toMatchObject({ status: 'warn' });
      expect(byName(report.checks, 'api_keys').message).toMatch(
        /No active API key has the scope services:execute/,
      );

      const failing = await runCli(['doctor'], { ...env, DOCTOR_DISK_FAIL_MB: String(1e12) });
      expect(failing.code).toBe(1);
      expect(failing.stdout).toMatch(/^FAIL\s+disk_space/m);
    },
    CLI_TIMEOUT_MS,
  ); // runs the compiled CLI several times
});

describe('doctor configuration checks (e2e)', () => {
  let t: TestApp;
  let key: string;

  // These remove the cache directory and store overrides: each test gets a fresh app of its own.
  beforeEach(async () => {
    t = await startApp();
    key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
  });
  afterEach(() => t.close());

  const doctor = async (body: object = {}) => {
    const res = await t.http().post('/api/v1/services/doctor').set(bearer(key)).send(body);
    expect(res.status).toBe(200);
    return res.body as { checks: Check[]; has_failures: boolean };
  };
  const configSet = (k: string, value: string) =>
    t.http().post('/api/v1/services/config_set').set(bearer(key)).send({ key: k, value });

  it('creates the cache directory on a fresh start, warns when it goes missing, and fixes it', async () => {
    const cache = join(t.dataDir, 'cache');
    expect(existsSync(cache)).toBe(true);
    rmSync(cache, { recursive: true });
    const before = byName((await doctor()).checks, 'cache_directory');
    expect(before).toEqual({
      name: 'cache_directory',
      status: 'warn',
      message: `Cache directory ${cache} is missing while llm_config.cache_enabled is true; fix creates it`,
      fixable: true,
    });
    expect(existsSync(cache)).toBe(false);
    const fixed = await doctor({ fix: true });
    expect(byName(fixed.checks, 'cache_directory')).toEqual({
      name: 'cache_directory',
      status: 'pass',
      message: `Cache directory ${cache} exists`,
    });
    expect(statSync(cache).isDirectory()).toBe(true);
  });

  it('passes without a cache directory while caching is off', async () => {
    const cache = join(t.dataDir, 'cache');
    rmSync(cache, { recursive: true });
    expect((await configSet('llm_config.cache_enabled', 'false')).status).toBe(200);
    expect(byName((await doctor()).checks, 'cache_directory').status).toBe('pass');
    expect((await configSet('llm_config.cache_enabled', 'true')).status).toBe(200);
    await doctor({ fix: true });
    expect(existsSync(cache)).toBe(true);
  });

  it('never creates a cache directory a stored override points outside DATA_DIR', async () => {
    const outside = join(tempDataDir(), 'elsewhere', 'cache');
    // config_set refuses such a path today (400); an override stored before that rule still exists.
    expect((await configSet('llm_config.cache_dir', outside)).status).toBe(400);
    await t.app.get(OverrideStore).setOverride('llm_config.cache_dir', outside);
    const report = await doctor({ fix: true });
    const check = byName(report.checks, 'cache_directory');
    expect(check.status).toBe('warn');
    expect(check.fixable).toBeUndefined();
    expect(check.message).toContain('create it by hand');
    expect(existsSync(outside)).toBe(false);
    await t.app.get(OverrideStore).deleteOverride('llm_config.cache_dir');
  });

  it('warns about invalid stored overrides and fixes them away, keeping the valid ones', async () => {
    const store = t.app.get(OverrideStore);
    await store.setOverride('server.port', 70000);
    await store.setOverride('retired.key', true);
    await store.setOverride('logging.verbose', true);
    const check = byName((await doctor()).checks, 'config_overrides');
    expect(check).toMatchObject({ status: 'warn', fixable: true });
    expect(check.message).toContain("'server.port'");
    expect(check.message).toContain("'retired.key'");
    const kept = { ...(await store.getOverrides()) };
    delete kept['server.port'];
    delete kept['retired.key'];
    const fixed = await doctor({ fix: true });
    expect(byName(fixed.checks, 'config_overrides')).toEqual({
      name: 'config_overrides',
      status: 'pass',
      message: `${Object.keys(kept).length} stored override(s), all valid`,
    });
    expect(await store.getOverrides()).toEqual(kept);
    expect(kept['logging.verbose']).toBe(true);
    await store.deleteOverride('logging.verbose');
  });

  it('reports a pending restart when a server override differs from what runs', async () => {
    expect(byName((await doctor()).checks, 'restart_pending').status).toBe('pass');
    expect((await configSet('server.port', '9123')).status).toBe(200);
    const check = byName((await doctor()).checks, 'restart_pending');
    expect(check.status).toBe('warn');
    expect(check.message).toBe(
      'Restart the service to apply: server.port is 9123 but runs as 8000',
    );
    expect((await configSet('server.port', '8000')).status).toBe(200);
    expect(byName((await doctor()).checks, 'restart_pending').status).toBe('pass');
  });
});

describe('doctor and CONFIG_FILE (e2e)', () => {
  it('fails config_file when the file was broken after start-up', async () => {
    const dir = tempDataDir();
    const file = join(dir, 'service.yaml');
    writeFileSync(file, 'logging:\n  level: debug\n');
    const t = await startApp({ env: { CONFIG_FILE: file } });
    try {
      const run = async () =>
        byName(
          (await t.http().post('/api/v1/services/doctor').set(bearer(t.adminKey)).send({})).body
            .checks,
          'config_file',
        );
      expect(await run()).toMatchObject({
        status: 'pass',
        message: `CONFIG_FILE ${file} is valid (1 key(s) set)`,
      });
      writeFileSync(file, 'logging:\n  level: loud\n');
      const broken = await run();
      expect(broken.status).toBe('fail');
      expect(broken.message).toContain(`Invalid CONFIG_FILE ${file}`);
      expect(broken.message).toContain('logging.level');
    } finally {
      await t.close();
    }
  });
});
