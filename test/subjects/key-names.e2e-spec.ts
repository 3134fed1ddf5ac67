import { OverrideStore } from '../../src/configuration/override.store';
import { KeyStore } from '../../src/subjects/key.store';
import { CLI_ACTOR } from '../../src/audit/audit.context';
import { AuditService } from '../../src/audit/audit.service';
import { bearer, startApp, TestApp } from '../support/app';
import { requestBodyOf } from '../support/openapi';
import { runCli, CLI_TIMEOUT_MS } from '../support/cli';

/** A name a red team tried: it clears the screen and retitles the terminal of whoever lists keys. */
const CLEAR_AND_RETITLE = '\u001b[2J\u001b]0;pwned\u0007';
/** One that forges a row of `keys list` (and a column with the tab). */
const FORGED_ROW = 'ok\r\nkey_0000000000000000\tsk_fake...\tactive\tunlimited\t*\tadmin';
/** One whose right-to-left override shows `txt.exe` as `exe.txt`. */
const BIDI = 'report\u202etxt.exe';
const REFUSAL = (codePoint: string) =>
  `Value error, Control characters, bidi controls and lone surrogates are not allowed (found ${codePoint})`;

describe('key names are text, not terminal commands (e2e)', () => {
  let t: TestApp;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await startApp();
    env = { DATA_DIR: t.dataDir };
  });
  afterAll(() => t.close());

  const create = (body: object) =>
    t.http().post('/api/v1/auth/api-keys').set(bearer(t.adminKey)).send(body);
  const patch = (id: string, body: object) =>
    t.http().patch(`/api/v1/auth/api-keys/${id}`).set(bearer(t.adminKey)).send(body);
  const names = async () =>
    (
      (await t.http().get('/api/v1/auth/api-keys').set(bearer(t.adminKey))).body as {
        name: string;
      }[]
    ).map((key) => key.name);

  it('takes names of 1 to 200 characters, any script and emoji included', async () => {
    for (const name of ['x'.repeat(200), '😀'.repeat(200), 'Zoë ❤️ نام', 'a']) {
      const res = await create({ name });
      expect({ name, status: res.status }).toEqual({ name, status: 201 });
      expect(res.body.name).toBe(name);
      const renamed = await patch(res.body.id as string, { name: `${name.slice(0, 190)}-2` });
      expect(renamed.status).toBe(200);
    }
    const long = await create({ name: 'x'.repeat(201) });
    expect(long.status).toBe(400);
    expect(long.body.detail).toEqual([
      {
        loc: ['body', 'name'],
        msg: 'String should have at most 200 characters',
        type: 'string_too_long',
      },
    ]);
  });

  it('refuses control characters, bidi controls and lone surrogates on create and PATCH, storing nothing', async () => {
    const { id } = await t.createKeyWithId({ name: 'kept' });
    const before = await names();
    const cases: [string, string][] = [
      [CLEAR_AND_RETITLE, 'U+001B'],
      [FORGED_ROW, 'U+000D'],
      ['tab\tname', 'U+0009'],
      ['nul\u0000', 'U+0000'],
      ['c1\u009b31m', 'U+009B'],
      [BIDI, 'U+202E'],
      ['\u2067isolate', 'U+2067'],
      ['lone \ud800', 'U+D800'],
    ];
    for (const [name, codePoint] of cases) {
      for (const res of [await create({ name }), await patch(id, { name })]) {
        expect({ name, status: res.status }).toEqual({ name, status: 400 });
        expect(res.body).toEqual({
          detail: [{ loc: ['body', 'name'], msg: REFUSAL(codePoint), type: 'value_error' }],
        });
      }
    }
    expect(await names()).toEqual(before);
    expect(
      (await t.http().get(`/api/v1/auth/api-keys/${id}`).set(bearer(t.adminKey))).body,
    ).toMatchObject({ name: 'kept' });
  });

  it('publishes the rule in the schema: maxLength 200 and the label pattern', async () => {
    const doc = (await t.http().get('/openapi.json')).body;
    for (const [path, method] of [
      ['/api/v1/auth/api-keys', 'post'],
      ['/api/v1/auth/api-keys/{id}', 'patch'],
    ]) {
      const { schema } = requestBodyOf<{
        properties: Record<string, Record<string, unknown>>;
      }>(doc, doc.paths[path][method]);
      const name = schema.properties.name;
      expect(name).toMatchObject({ minLength: 1, maxLength: 200, pattern: expect.any(String) });
      const pattern = new RegExp(name.pattern as string, 'u');
      expect(
        [CLEAR_AND_RETITLE, FORGED_ROW, BIDI, 'x\udc00'].filter((n) => pattern.test(n)),
      ).toEqual([]);
      expect(pattern.test('Zoë ❤️ 😀')).toBe(true);
    }
  });

  it(
    'refuses the same names through the CLI (exit 2), storing nothing',
    async () => {
      const { id } = await t.createKeyWithId({ name: 'cli-kept' });
      const before = await names();
      const [created, updated, empty, long] = await Promise.all([
        runCli(['keys', 'create', '--name', CLEAR_AND_RETITLE], env),
        runCli(['keys', 'update', id, '--name', 'two\nlines'], env),
        runCli(['keys', 'create', '--name', ''], env),
        runCli(['keys', 'create', '--name', 'x'.repeat(201)], env),
      ]);
      expect([created.code, updated.code, empty.code, long.code]).toEqual([2, 2, 2, 2]);
      expect(created.stderr).toBe(
        'error: Invalid name: Control characters, bidi controls and lone surrogates are not allowed (found U+001B)\n',
      );
      expect(updated.stderr).toContain('Invalid name: Control characters');
      expect(updated.stderr).toContain('(found U+000A)');
      expect(empty.stderr).toBe('error: Invalid name: String should have at least 1 character\n');
      expect(long.stderr).toBe('error: Invalid name: String should have at most 200 characters\n');
      expect(created.stdout + updated.stdout).toBe('');
      expect(await names()).toEqual(before);
    },
    CLI_TIMEOUT_MS,
  ); // runs the compiled CLI four times

  describe('the CLI prints what is stored escaped', () => {
    let id: string;
    // No lone surrogate: both stores write UTF-8, which turns one into U+FFFD (src/kernel/common/text.spec.ts
    // shows one escaped).
    const stored = `${CLEAR_AND_RETITLE}|${FORGED_ROW}|${BIDI}|nul\u0000|del\u007f|c1\u0085`;
    const shown =
      '\\u001b[2J\\u001b]0;pwned\\u0007|ok\\r\\nkey_0000000000000000\\tsk_fake...\\tactive\\tunlimited\\t*\\tadmin|report\\u202etxt.exe|nul\\u0000|del\\u007f|c1\\u0085';

    beforeAll(async () => {
      // Written straight to the store, as a name from before names were checked would be.
      ({ id } = await t.createKeyWithId({ name: 'renamed-below', scope_template: 'standard' }));
      await t.app.get(KeyStore).updateKey(id, { name: stored });
      await t.app
        .get(AuditService)
        .record(CLI_ACTOR, 'api_key.update', id, { name: { from: 'renamed-below', to: stored } });
    });

    /** Nothing a terminal would act on: every control, bidi control and lone surrogate escaped. */
    // eslint-disable-next-line no-control-regex -- control characters are what it looks for
    const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\p{Cs}/u;
    /** The output's own tabs and line ends apart, nothing a terminal would act on. */
    const inert = (text: string) => expect(text).not.toMatch(UNSAFE);

    it(
      'keys list, show, update, rotate and usage: as text, one row a key',
      async () => {
        const [list, show, update, rotate, usage] = await Promise.all([
          runCli(['keys', 'list'], env),
          runCli(['keys', 'show', id], env),
          runCli(['keys', 'update', id, '--rate-limit', '9'], env),
          runCli(['keys', 'rotate', id], env),
          runCli(['keys', 'usage', id], env),
        ]);
        for (const run of [list, show, update, rotate, usage]) {
          expect(run.code).toBe(0);
          inert(run.stdout);
        }
        const row = list.stdout.split('\n').find((line) => line.startsWith(`${id}\t`));
        expect(row?.split('\t')).toEqual([
          id,
          expect.stringMatching(/^sk_[0-9a-f]{8}\.\.\.$/),
          'active',
          'free',
          'services:read,services:execute',
          shown,
        ]);
        expect(list.stdout).not.toContain('key_0000000000000000\t');
        expect(show.stdout).toContain(`${id} (${shown}): active\n`);
        expect(update.stdout).toContain(`${id} (${shown}): active\n`);
      },
      CLI_TIMEOUT_MS,
    ); // runs the compiled CLI five times

    it(
      'keys show --json and audit: JSON that reads back the stored name, and text escaped',
      async () => {
        const [json, list, audit, auditJson] = await Promise.all([
          runCli(['keys', 'show', id, '--json'], env),
          runCli(['keys', 'list', '--json'], env),
          runCli(['audit', '--limit', '5'], env),
          runCli(['audit', '--limit', '5', '--json'], env),
        ]);
        for (const run of [json, list, audit, auditJson]) {
          expect(run.code).toBe(0);
          inert(run.stdout);
        }
        expect(JSON.parse(json.stdout)).toMatchObject({ id, name: stored });
        expect(
          (JSON.parse(list.stdout) as { id: string; name: string }[]).find((k) => k.id === id),
        ).toMatchObject({ name: stored });
        const entries = (JSON.parse(auditJson.stdout) as { entries: { details: unknown }[] })
          .entries;
        expect(entries.map((e) => e.details)).toContainEqual({
          name: { from: 'renamed-below', to: stored },
          source: 'cli',
        });
        expect(
          audit.stdout
            .split('\n')
            .filter(Boolean)
            .every((l) => l.split('\t').length === 6),
        ).toBe(true);
      },
      CLI_TIMEOUT_MS,
    ); // runs the compiled CLI four times

    it('doctor: a stored override is shown escaped', async () => {
      await t.app
        .get(OverrideStore)
        .setOverride('server.port', `${CLEAR_AND_RETITLE}\nPASS  all_good`);
      try {
        const doctor = await runCli(['doctor'], env);
        inert(doctor.stdout);
        expect(doctor.stdout).toContain('\\u001b[2J');
        expect(doctor.stdout).not.toMatch(/^PASS {2}all_good/m);
      } finally {
        await t.app.get(OverrideStore).deleteOverride('server.port');
      }
    }, 30_000);
  });
});
