import { bearer, startApp, TestApp } from './support/app';
import { runCli } from './support/cli';

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
    const { schemas } = (await t.http().get('/openapi.json')).body.components as {
      schemas: Record<string, { properties: Record<string, Record<string, unknown>> }>;
    };
    for (const dto of ['CreateApiKeyInput', 'UpdateApiKeyInput']) {
      const name = schemas[dto].properties.name;
      expect(name).toMatchObject({ minLength: 1, maxLength: 200, pattern: expect.any(String) });
      const pattern = new RegExp(name.pattern as string, 'u');
      expect(
        [CLEAR_AND_RETITLE, FORGED_ROW, BIDI, 'x\udc00'].filter((n) => pattern.test(n)),
      ).toEqual([]);
      expect(pattern.test('Zoë ❤️ 😀')).toBe(true);
    }
  });

  it('refuses the same names through the CLI (exit 2), storing nothing', async () => {
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
  }, 60_000); // runs the compiled CLI four times
});
