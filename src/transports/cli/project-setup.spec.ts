import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NPM_INIT_TEST_SCRIPT, planProjectSetup } from './project-setup';
import { PlannedFile } from './tool-generator';

/** package.json as `npm init -y` writes it, with the package installed. */
const NPM_INIT = {
  name: 'my-tools',
  version: '1.0.0',
  description: '',
  main: 'index.js',
  scripts: { test: NPM_INIT_TEST_SCRIPT },
  keywords: [],
  author: '',
  license: 'ISC',
  type: 'commonjs',
  devDependencies: { 'tool-invocation-service': '^1.0.0' },
};

/** The folders the specs made, removed after them. */
const folders: string[] = [];
const folder = () => {
  folders.push(mkdtempSync(join(tmpdir(), 'tis-tools-init-')));
  return folders[folders.length - 1];
};
afterAll(() => folders.forEach((path) => rmSync(path, { recursive: true, force: true })));

function project(manifest: object = NPM_INIT, files: Record<string, string> = {}): string {
  const root = folder();
  writeFileSync(join(root, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  return root;
}

const fileOf = (files: PlannedFile[], path: string) => {
  const found = files.find((file) => file.path === path);
  if (!found) throw new Error(`${path} is not planned`);
  return found;
};

/** A Jest configuration's text, as Jest loads it (module.exports). */
function loaded(text: string): Record<string, unknown> {
  const path = join(folder(), 'jest.config.js');
  writeFileSync(path, text);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded as Jest loads it
  return require(path) as Record<string, unknown>;
}

describe('tools init: what an empty project gets', () => {
  it('a Jest configuration, a tsconfig.json and the scripts, npm init placeholder replaced', () => {
    const setup = planProjectSetup(project());
    expect(setup.files.map((file) => [file.path, file.created, file.change])).toEqual([
      ['jest.config.js', true, undefined],
      ['tsconfig.json', true, undefined],
      ['package.json', false, 'scripts: test, typecheck'],
    ]);
    expect(setup.kept).toEqual([]);
    expect(setup.jestConfigured).toBe(false);
    const manifest = fileOf(setup.files, 'package.json').text;
    expect(manifest).toBe(
      `${JSON.stringify({ ...NPM_INIT, scripts: { test: 'jest', typecheck: 'tsc --noEmit' } }, null, 2)}\n`,
    );
  });

  it('a Jest configuration that runs the specs tools new writes, through SWC', () => {
    const config = loaded(fileOf(planProjectSetup(project()).files, 'jest.config.js').text);
    const specs = new RegExp(config.testRegex as string);
    expect(
      ['test/word_count.e2e-spec.ts', 'src/tools/count.spec.ts'].map((path) => specs.test(path)),
    ).toEqual([true, true]);
    expect(specs.test('src/tools/word_count.tool.ts')).toBe(false);
    const transforms = Object.entries(config.transform as Record<string, [string, object]>);
    const transformOf = (path: string) =>
      transforms.find(([pattern]) => new RegExp(pattern).test(path))?.[1][0];
    expect(transformOf('/p/test/word_count.e2e-spec.ts')).toBe('@swc/jest');
    expect(transformOf('/p/node_modules/jose/dist/webapi/index.js')).toBe('@swc/jest');
    const nested = '/p/node_modules/a/node_modules/@apidevtools/json-schema-ref-parser/dist/x.js';
    expect(transformOf(nested)).toBe('@swc/jest');
    const ignored = new RegExp((config.transformIgnorePatterns as string[])[0]);
    expect(
      [nested, '/p/node_modules/jose/dist/a.js', '/p/node_modules/express/index.js'].map((path) =>
        ignored.test(path),
      ),
    ).toEqual([false, false, true]);
    expect(config.testEnvironment).toBe('node');
  });

  it('a tsconfig.json (JSON) for CommonJS code, nodenext (TypeScript 7 refuses node10), decorators', () => {
    const text = fileOf(planProjectSetup(project()).files, 'tsconfig.json').text;
    const { compilerOptions, include } = JSON.parse(text) as {
      compilerOptions: Record<string, unknown>;
      include: string[];
    };
    expect(compilerOptions).toMatchObject({
      module: 'nodenext',
      moduleResolution: 'nodenext',
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      strictPropertyInitialization: false,
      types: ['node', 'jest'],
      noEmit: true,
    });
    expect(include).toEqual(['src/**/*.ts', 'test/**/*.ts']);
  });

  it('in a "type": "module" project, jest.config.cjs and bundler resolution', () => {
    const setup = planProjectSetup(project({ ...NPM_INIT, type: 'module' }));
    expect(setup.files.map((file) => file.path)).toEqual([
      'jest.config.cjs',
      'tsconfig.json',
      'package.json',
    ]);
    const tsconfig = JSON.parse(fileOf(setup.files, 'tsconfig.json').text) as {
      compilerOptions: Record<string, unknown>;
    };
    expect(tsconfig.compilerOptions).toMatchObject({
      module: 'preserve',
      moduleResolution: 'bundler',
    });
  });
});

describe('tools init: what the project has is kept', () => {
  it('its Jest configuration, its tsconfig.json and its scripts, each named', () => {
    const manifest = { ...NPM_INIT, scripts: { test: 'mocha', typecheck: 'tsc -p .' } };
    const root = project(manifest, {
      'jest.config.ts': 'export default {};\n',
      'tsconfig.json': '{}\n',
    });
    const setup = planProjectSetup(root);
    expect(setup.files).toEqual([]);
    expect(setup.kept).toEqual([
      'jest.config.ts',
      'tsconfig.json',
      'package.json\'s test script "mocha"',
      'package.json\'s typecheck script "tsc -p ."',
    ]);
    expect(setup.jestConfigured).toBe(true);
  });

  it("package.json's jest key; a script missing is added beside the others, as laid out", () => {
    const manifest = {
      name: 'x',
      jest: { preset: 'ts-jest' },
      scripts: { build: 'tsc' },
      devDependencies: {},
    };
    const root = folder();
    writeFileSync(join(root, 'package.json'), JSON.stringify(manifest, null, '\t'));
    const setup = planProjectSetup(root);
    expect(setup.kept).toEqual(["package.json's jest key"]);
    expect(setup.jestConfigured).toBe(true);
    expect(setup.files.map((file) => file.path)).toEqual(['tsconfig.json', 'package.json']);
    expect(fileOf(setup.files, 'package.json').text).toBe(
      JSON.stringify(
        { ...manifest, scripts: { build: 'tsc', test: 'jest', typecheck: 'tsc --noEmit' } },
        null,
        '\t',
      ),
    );
  });
});

describe('tools init: its page', () => {
  /** The blocks of a language in docs/testing-kit.md, as a reader copies them (unindented). */
  const blocksOf = (language: string) => {
    const page = readFileSync(join(__dirname, '../../../docs/testing-kit.md'), 'utf8');
    const fence = new RegExp(`^( *)\`\`\`${language}\\n([\\s\\S]*?)^\\1\`\`\`$`, 'gm');
    return [...page.matchAll(fence)].map(([, indent, code]) =>
      code.replace(new RegExp(`^${indent}`, 'gm'), ''),
    );
  };

  it('docs/testing-kit.md shows the jest.config.js and tsconfig.json it writes', () => {
    const { files } = planProjectSetup(project());
    expect(blocksOf('js')).toContain(fileOf(files, 'jest.config.js').text);
    expect(blocksOf('json')).toContain(fileOf(files, 'tsconfig.json').text);
  });
});
