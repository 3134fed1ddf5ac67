import { AuditService } from '../../src/audit/audit.service';
import type { Me } from '../../src/subjects/api-keys.dto';
import { bearer, startApp, TestApp } from '../support/app';
import { CLI_TIMEOUT_MS, runCli } from '../support/cli';

describe('CLI: keys show, update, rotate, usage and audit (e2e)', () => {
  // Each test runs the compiled CLI several times.
  jest.setTimeout(CLI_TIMEOUT_MS);
  let t: TestApp;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await startApp();
    env = { DATA_DIR: t.dataDir };
  });
  afterAll(() => t.close());

  /** A key of each test's own, so that no test depends on another's changes. */
  const target = (extra: Record<string, unknown> = {}) =>
    t.createKeyWithId({ name: 'cli-target', scope_template: 'standard', daily_limit: 5, ...extra });

  const greet = (secret: string) =>
    t.http().post('/api/v1/services/greet').set(bearer(secret)).send({ name: 'CLI' });

  it('shows a key and its usage, as text and as JSON, never its text', async () => {
    const { id, key } = await target();
    await greet(key).expect(200);
    const [json, text, usage, usageText] = await Promise.all([
      runCli(['keys', 'show', id, '--json'], env),
      runCli(['keys', 'show', id], env),
      runCli(['keys', 'usage', id, '--days', '3', '--json'], env),
      runCli(['keys', 'usage', id], env),
    ]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      id,
      name: 'cli-target',
      daily_limit: 5,
      enabled: true,
      status: 'active',
    });
    expect(json.stdout + text.stdout).not.toMatch(/sk_[0-9a-f]{64}/);
    expect(text.stdout).toContain(`${id} (cli-target): active`);
    expect(text.stdout).toMatch(/ {2}daily_limit 5\n/);
    const body = JSON.parse(usage.stdout) as { used: number; history: { used: number }[] };
    expect(body).toMatchObject({ plan: 'free', daily_limit: 5, used: 1, remaining: 4 });
    expect(body.history.map((d) => d.used)).toEqual([1, 0, 0]);
    expect(usageText.stdout).toMatch(
      new RegExp(
        `^${id}: 1 credit today, limit 5, plan free\\.\\n\\d{4}-\\d{2}-\\d{2}\\t1\\tgreet: 1 call, 1 credit, 0 failed\\n$`,
      ),
    );
  });

  it('updates a key (disable, limits back to the plan) with effect on the server at once', async () => {
    const { id, key } = await target();
    const off = await runCli(
      ['keys', 'update', id, '--name', 'renamed', '--daily-limit', 'none', '--disable', '--json'],
      env,
    );
    expect(off.code).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({
      name: 'renamed',
      daily_limit: null,
      enabled: false,
      status: 'disabled',
    });
    expect((await greet(key)).status).toBe(401);
    const on = await runCli(['keys', 'update', id, '--enable', '--rate-limit', '9'], env);
    expect(on.code).toBe(0);
    expect(on.stdout).toMatch(new RegExp(`^Updated ${id}\\.\\n${id} \\(renamed\\): active\\n`));
    expect((await greet(key)).status).toBe(200);
  });

  it('rotates a key with a grace, printing the new key once', async () => {
    const { id, key } = await target({ rate_limit: 9 });
    const rotated = await runCli(['keys', 'rotate', id, '--grace-seconds', '60', '--json'], env);
    expect(rotated.code).toBe(0);
    const out = JSON.parse(rotated.stdout) as { id: string; key: string; rate_limit: number };
    expect(out).toMatchObject({ id, rate_limit: 9 });
    expect(out.key).toMatch(/^sk_[0-9a-f]{64}$/);
    expect((await greet(out.key)).status).toBe(200);
    expect((await greet(key)).status).toBe(200);
    const again = await runCli(['keys', 'rotate', id], env);
    expect(again.stdout).toMatch(
      new RegExp(
        `^Rotated ${id}; the old key no longer works\\.\\nKey \\(shown once, store it now\\): sk_[0-9a-f]{64}\\n$`,
      ),
    );
    expect((await greet(out.key)).status).toBe(401);
  });

  it('lists keys under a header row, one row a key; --json is the array alone', async () => {
    const { id } = await target();
    const [text, json] = await Promise.all([
      runCli(['keys', 'list'], env),
      runCli(['keys', 'list', '--json'], env),
    ]);
    expect(text.code).toBe(0);
    const rows = text.stdout.split('\n').filter(Boolean);
    expect(rows[0]).toBe('id\tprefix\tstatus\tplan\tscopes\tname');
    expect(rows.find((row) => row.startsWith(`${id}\t`))?.split('\t')).toEqual([
      id,
      expect.stringMatching(/^sk_[0-9a-f]{8}\.\.\.$/),
      'active',
      'free',
      'services:read,services:execute',
      'cli-target',
    ]);
    // Every key a row of its own under the header, the initial admin key among them.
    const listed = JSON.parse(json.stdout) as { id: string }[];
    expect(rows.slice(1).map((row) => row.split('\t')[0])).toEqual(listed.map((k) => k.id));
    expect(listed.map((k) => k.id)).toContain(id);
  });

  it('lists the audit trail; CLI actions name no key and say source cli', async () => {
    // An app of its own: the trail is the whole deployment's, newest first.
    const own = await startApp();
    try {
      await auditTrail(own);
    } finally {
      await own.close();
    }
  });

  async function auditTrail(t: TestApp): Promise<void> {
    const env = { DATA_DIR: t.dataDir };
    const { id } = await t.createKeyWithId({ name: 'cli-target', scope_template: 'standard' });
    expect((await runCli(['keys', 'update', id, '--disable'], env)).code).toBe(0);
    expect((await runCli(['keys', 'update', id, '--enable'], env)).code).toBe(0);
    expect((await runCli(['keys', 'rotate', id, '--grace-seconds', '60'], env)).code).toBe(0);
    expect((await runCli(['keys', 'rotate', id], env)).code).toBe(0);
    const [json, text] = await Promise.all([
      runCli(['audit', '--limit', '4', '--json'], env),
      runCli(['audit', '--limit', '1'], env),
    ]);
    const { entries } = JSON.parse(json.stdout) as {
      entries: { action: string; actor_key_id: string | null; details: object }[];
    };
    expect(entries.map((e) => e.action)).toEqual([
      'api_key.rotate',
      'api_key.rotate',
      'api_key.update',
      'api_key.update',
    ]);
    expect(entries[0]).toMatchObject({
      actor_key_id: null,
      details: { grace_seconds: 0, source: 'cli' },
    });
    expect(json.stdout).not.toMatch(/sk_[0-9a-f]{64}/);
    // The actor column: `cli` for the operator's CLI (the entry names no key), `system` for the
    // initial key made at the first start, the key's id for a change made with a key.
    expect(text.stdout).toMatch(
      new RegExp(
        `^\\d+\\t\\S+\\tcli\\tapi_key\\.rotate\\t${id}\\t\\{"grace_seconds":0,"source":"cli"\\}\\n$`,
      ),
    );
    const api = await t.http().get('/api/v1/audit?limit=1').set(bearer(t.adminKey));
    expect(api.body.entries[0]).toMatchObject({ action: 'api_key.rotate', actor_key_id: null });
    // And the principal's id for a change an OAuth principal made.
    const principal = 'prn_0123456789abcdef0123456789abcdef';
    const byPrincipal = { actorKeyId: null, actorPrincipalId: principal, requestId: 'req-1' };
    const disabled = { enabled: { from: true, to: false } };
    await t.app.get(AuditService).record(byPrincipal, 'api_key.update', id, disabled);
    const rows = (await runCli(['audit'], env)).stdout.split('\n').filter(Boolean);
    const actors = rows.map((row) => row.split('\t').slice(2, 5));
    const admin = ((await t.http().get('/api/v1/auth/me').set(bearer(t.adminKey))).body as Me)
      .key_id;
    expect(actors.at(-1)).toEqual(['system', 'api_key.create', admin]);
    expect(actors.at(-2)).toEqual([admin, 'api_key.create', id]);
    expect(actors[0]).toEqual([principal, 'api_key.update', id]);
    expect(actors.slice(1, 5).map(([actor]) => actor)).toEqual(['cli', 'cli', 'cli', 'cli']);
  }

  it('refuses unknown keys (exit 1) and bad options (exit 2)', async () => {
    const { id } = await target();
    const [unknown, grace, days, both] = await Promise.all([
      runCli(['keys', 'show', 'key_nope'], env),
      runCli(['keys', 'rotate', id, '--grace-seconds', '604801'], env),
      runCli(['keys', 'usage', id, '--days', '91'], env),
      runCli(['keys', 'update', id, '--enable', '--disable'], env),
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('API key not found: key_nope');
    expect([grace.code, days.code, both.code]).toEqual([2, 2, 2]);
    expect(grace.stderr).toContain('expected a whole number from 0 to 604800');
  });
});
