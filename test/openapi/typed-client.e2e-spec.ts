import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runInThisContext } from 'node:vm';
import * as ts from 'typescript';
import { bearer, startApp, TestApp, listenOnLoopback } from '../support/app';
import { blocksOf } from '../support/doc-blocks';
import { typeCheck } from '../support/typescript';

/**
 * A typed client made the way the docs tell (docs/api.md#a-typed-client): openapi-typescript's
 * command, with its default options, turns the served OpenAPI document into types, and the page's
 * client file, which calls greet through openapi-fetch, compiles against them and runs. A tool that
 * always answers at once (`greet`) is read without narrowing, and its defaulted inputs (`shout`,
 * `times`) may be left out.
 */
const PAGE = 'docs/api.md';
const CLIENT = (() => {
  const blocks = blocksOf(PAGE, readFileSync(join(__dirname, '../..', PAGE), 'utf8'));
  const block = blocks.find(
    ({ compiledBy }) => compiledBy === 'test/openapi/typed-client.e2e-spec.ts',
  );
  if (!block) throw new Error(`${PAGE} shows no client for this spec to compile`);
  return block.code;
})();

/** Where the generated files are compiled (in memory): a folder of the repository's test tree. */
const DIR = join(__dirname, '../typed-client');

describe('a typed client generated from the OpenAPI document (e2e)', () => {
  let t: TestApp;
  let baseUrl: string;
  let types: string;

  beforeAll(async () => {
    t = await startApp();
    const port = await listenOnLoopback(t.app);
    baseUrl = `http://127.0.0.1:${port}`;
    // npx openapi-typescript http://…/openapi.json -o api.ts, as a user runs it.
    const output = join(mkdtempSync(join(tmpdir(), 'tis-client-')), 'api.ts');
    const cli = join(__dirname, '..', '..', 'node_modules', '.bin', 'openapi-typescript');
    await promisify(execFile)(process.execPath, [cli, `${baseUrl}/openapi.json`, '-o', output]);
    types = readFileSync(output, 'utf8');
  }, 60_000);
  afterAll(() => t.close());

  it('reads data.message of greet without narrowing, and sends only name', () => {
    const errors = typeCheck(
      new Map([
        [join(DIR, 'api.ts'), types],
        [join(DIR, 'greet-client.ts'), CLIENT],
      ]),
    );
    expect(errors.map(({ file, line, message }) => `${file}:${line + 1}: ${message}`)).toEqual([]);
  }, 60_000);

  it('types greet with one success, and its defaulted inputs as optional', () => {
    const greet = types.slice(types.indexOf('    greet: {'));
    const responses = greet.slice(greet.indexOf('responses: {'), greet.indexOf('\n    };'));
    expect(responses).toContain('200: {');
    expect(responses).not.toContain('202: {');
    expect(types).toMatch(/GreetInput: \{[^}]*?shout\?: boolean;[^}]*?times\?: number;/s);
  });

  it('calls greet as the docs show, and the service applies the defaults', async () => {
    const js = ts.transpileModule(CLIENT, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const client: { greet?: (url: string, key: string) => Promise<string> } = {};
    const load = runInThisContext(`(function (exports, require) {${js}\n})`) as (
      exports: object,
      require: NodeJS.Require,
    ) => void;
    load(client, require);
    const key = await t.createKey({ scopes: ['services:execute:greet'] });
    await expect(client.greet?.(baseUrl, key)).resolves.toBe('Hello, Ada!');
  });

  it('answers Prefer: respond-async at once for a tool that never runs in the background', async () => {
    const res = await t
      .http()
      .post('/api/v1/services/greet')
      .set(bearer(t.adminKey))
      .set('Prefer', 'respond-async')
      .send({ name: 'Ada' });
    expect([res.status, res.body, res.headers.location]).toEqual([
      200,
      { message: 'Hello, Ada!', times: 1 },
      undefined,
    ]);
  });
});
