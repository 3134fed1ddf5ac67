import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runInThisContext } from 'node:vm';
import * as ts from 'typescript';
import { bearer, startApp, TestApp, listenOnLoopback } from '../support/app';
import { builtApp } from '../support/built';
import { blocksOf } from '../support/doc-blocks';
import { typeCheck } from '../support/typescript';

/**
 * The typed client `npm run client` writes (docs/api.md#a-typed-client): its script
 * (scripts/client.js) is run as the command runs it, into a folder of its own and on the tests'
 * build (dist-test/, as fresh as src/), and what it writes is what is tested: the page's greet.ts,
 * which calls greet through `createToolClient`, compiles against it and runs against a started
 * service. A tool that always answers at once (`greet`) is read without narrowing, and its defaulted
 * inputs (`shout`, `times`) may be left out. openapi-typescript's own command, on the served
 * document, writes the same types (the page's way without the repository).
 */
const ROOT = join(__dirname, '../..');
const PAGE = 'docs/api.md';
const GREET = (() => {
  const blocks = blocksOf(PAGE, readFileSync(join(ROOT, PAGE), 'utf8'));
  const block = blocks.find(
    ({ compiledBy }) => compiledBy === 'test/openapi/typed-client.e2e-spec.ts',
  );
  if (!block) throw new Error(`${PAGE} shows no client for this spec to compile`);
  return block.code;
})();

/** Where the files are compiled (in memory): greet.ts beside clients/typescript/, in test/. */
const DIR = join(__dirname, '../typed-client');
const CLIENT_DIR = join(DIR, 'clients', 'typescript');

const run = promisify(execFile);

/** What the types say after their header (each generator writes a header of its own). */
function withoutHeader(types: string): string {
  return types.slice(types.indexOf('export interface paths {'));
}

/** Runs a TypeScript module, compiled to CommonJS, with `require` resolving its imports. */
function load(code: string, requireOf: (id: string) => unknown): Record<string, unknown> {
  const js = ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const exports = {};
  const body = runInThisContext(`(function (exports, require) {${js}\n})`) as (
    exports: object,
    require: (id: string) => unknown,
  ) => void;
  body(exports, requireOf);
  return exports;
}

describe('the typed client `npm run client` writes (e2e)', () => {
  let t: TestApp;
  let baseUrl: string;
  /** What the script wrote, by file name. */
  let written: Map<string, string>;

  beforeAll(async () => {
    t = await startApp();
    const port = await listenOnLoopback(t.app);
    baseUrl = `http://127.0.0.1:${port}`;
    const out = mkdtempSync(join(tmpdir(), 'tis-client-'));
    await run(process.execPath, [join(ROOT, 'scripts', 'client.js'), out], {
      env: { ...process.env, BUILD_DIR: builtApp() },
    });
    written = new Map(
      readdirSync(out).map((name) => [name, readFileSync(join(out, name), 'utf8')]),
    );
  }, 60_000);
  afterAll(() => t.close());

  it('writes the types and the client that uses them', () => {
    expect([...written.keys()].sort()).toEqual(['index.ts', 'openapi.d.ts']);
    expect(written.get('index.ts')).toContain(
      'export function createToolClient(baseUrl: string, key: string)',
    );
  });

  it("writes the types openapi-typescript's command writes from the served document", async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'tis-client-cli-')), 'openapi.d.ts');
    const cli = join(ROOT, 'node_modules', '.bin', 'openapi-typescript');
    await run(process.execPath, [cli, `${baseUrl}/openapi.json`, '--alphabetize', '-o', output]);
    expect(withoutHeader(written.get('openapi.d.ts') ?? '')).toBe(
      withoutHeader(readFileSync(output, 'utf8')),
    );
  }, 60_000);

  it('types greet with one success, and its defaulted inputs as optional', () => {
    const types = written.get('openapi.d.ts') ?? '';
    const greet = types.slice(types.indexOf('    greet: {'));
    const responses = greet.slice(greet.indexOf('responses: {'), greet.indexOf('\n    };'));
    expect(responses).toContain('200: {');
    expect(responses).not.toContain('202: {');
    expect(types).toMatch(/GreetInput: \{[^}]*?shout\?: boolean;[^}]*?times\?: number;/s);
  });

  it("compiles the page's greet.ts against it: data.message without narrowing, only name sent", () => {
    const errors = typeCheck(
      new Map([
        ...[...written].map(([name, text]) => [join(CLIENT_DIR, name), text] as const),
        [join(DIR, 'greet.ts'), GREET],
      ]),
    );
    expect(errors.map(({ file, line, message }) => `${file}:${line + 1}: ${message}`)).toEqual([]);
  }, 60_000);

  it('calls greet through createToolClient, with the key, and the service applies the defaults', async () => {
    const requireHere: (id: string) => unknown = require;
    const client = load(written.get('index.ts') ?? '', requireHere);
    const page = load(GREET, (id) =>
      id === './clients/typescript' ? client : requireHere(id),
    ) as {
      greet?: (url: string, key: string) => Promise<string>;
    };
    const key = await t.createKey({ scopes: ['services:execute:greet'] });
    await expect(page.greet?.(baseUrl, key)).resolves.toBe('Hello, Ada!');
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
