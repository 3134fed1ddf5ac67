import { ApiError, InputRefused } from '../kernel/errors/api-error';
import { createInput, patchedFields } from './source-input';
import { joinSecrets, redacted, splitSecrets } from './source-secrets';
import { sourceDefinition } from './source-config';

const URL_ = 'https://mcp.example.com/mcp';

/** What a call threw: its status and detail. */
function refusal(run: () => unknown): [number, unknown] {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return [error.getStatus(), error.detail];
    throw error;
  }
  throw new Error('nothing was refused');
}

describe('what POST /api/v1/sources takes', () => {
  it('takes the file’s fields and a name', () => {
    expect(createInput({ name: 'up', kind: 'mcp', url: URL_, include: ['echo'] })).toEqual({
      name: 'up',
      fields: { kind: 'mcp', url: URL_, include: ['echo'] },
    });
  });

  it.each([
    [{ name: 'x', kind: 'mcp', command: 'node' }, 'command is allowed in CONFIG_FILE only.'],
    [{ name: 'x', kind: 'mcp', env: {} }, 'env is allowed in CONFIG_FILE only.'],
    [
      { name: 'x', kind: 'openapi', document: 'C:/doc.json', base_url: URL_ },
      'A file path as document is allowed in CONFIG_FILE only.',
    ],
    [
      { name: 'x', kind: 'mcp', url: URL_, tools: { a: { cost: 1 } }, include: ['${A}'] },
      'A ${NAME} reference (in include.0) is allowed in CONFIG_FILE only.',
    ],
  ])('refuses what only CONFIG_FILE may say: %j', (body, detail) => {
    expect(refusal(() => createInput(body))).toEqual([400, detail]);
  });

  it('answers wrong fields as the pipe does, one entry a problem', () => {
    const [, detail] = refusal(() =>
      createInput({ name: 'x', kind: 'ftp', prefix: 'a b', auth: { type: 'bearer' } }),
    );
    expect(detail).toEqual([
      { loc: ['body', 'kind'], msg: expect.any(String), type: 'literal_error' },
      { loc: ['body', 'prefix'], msg: expect.any(String), type: 'string_pattern_mismatch' },
      { loc: ['body', 'auth', 'token'], msg: 'Field required', type: 'missing' },
    ]);
    expect(() => createInput('text')).toThrow(InputRefused);
  });
});

describe('what PATCH changes', () => {
  const before = {
    kind: 'mcp' as const,
    url: URL_,
    cost: 3,
    auth: { type: 'bearer' as const, token: 'secret-token' },
  };

  it('replaces what is given, drops what is null, keeps the rest (secrets too), and names what changed', () => {
    expect(patchedFields(before, { cost: null, include: ['a'], url: URL_ })).toEqual({
      fields: { kind: 'mcp', url: URL_, include: ['a'], auth: before.auth },
      changed: ['include', 'cost'],
    });
  });

  it('checks the whole again', () => {
    const [status, detail] = refusal(() => patchedFields(before, { kind: null }));
    expect(status).toBe(400);
    expect(detail).toEqual([{ loc: ['body', 'kind'], msg: 'Field required', type: 'missing' }]);
  });
});

describe("a source's secrets", () => {
  const fields = {
    kind: 'mcp' as const,
    url: `${URL_}?tenant=acme-tenant&key=k3y-value`,
    auth: { type: 'header' as const, name: 'X-Key', value: 'header-secret' },
  };

  it('are kept apart from the other fields, and join them again as they were', () => {
    const { open, secrets } = splitSecrets(fields);
    expect(open).toEqual({ kind: 'mcp', url: URL_ });
    expect(secrets).toEqual({
      auth: fields.auth,
      query: { url: '?tenant=acme-tenant&key=k3y-value' },
    });
    expect(joinSecrets(open, JSON.stringify(secrets))).toEqual(fields);
    expect(splitSecrets({ kind: 'mcp', url: URL_ })).toEqual({
      open: { kind: 'mcp', url: URL_ },
      secrets: null,
    });
  });

  it('are blanked out of what a source says', () => {
    const definition = sourceDefinition('up', fields, 'api');
    const said = `GET ${fields.url} failed: header-secret rejected, k3y-value unknown, ${encodeURIComponent('tenant=acme-tenant&key=k3y-value')}`;
    const shown = redacted(definition, said);
    for (const secret of ['header-secret', 'k3y-value', 'acme-tenant'])
      expect(shown).not.toContain(secret);
    expect(shown).toContain(URL_);
  });
});
