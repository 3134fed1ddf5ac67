import { execFile } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { builtApp } from '../support/built';
import { CLI_TIMEOUT_MS } from '../support/cli';

const ROOT = resolve(__dirname, '../..');
const PACKAGE = 'tool-invocation-service';

/** package.json as `npm init -y` writes it, the package added by `npm install --save-dev`. */
const NPM_INIT = {
  name: 'my-tools',
  version: '1.0.0',
  description: '',
  main: 'index.js',
  scripts: { test: 'echo "Error: no test specified" && exit 1' },
  keywords: [],
  author: '',
  license: 'ISC',
  type: 'commonjs',
  devDependencies: { [PACKAGE]: '^1.0.0' },
};

/**
 * A team's project as `npm init` and an install of the package leave it, Prettier not installed:
 * the package's compiled CLI in node_modules/tool-invocation-service (a copy, so that what it
 * resolves is resolved from there), its dependencies and the test tools beside it (the
 * repository's, linked), Prettier left out. The registry's install is `npm run test:kit-project`'s.
 */
function teamProject(manifest: object = NPM_INIT, files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'tis-tools-init-'));
  writeFileSync(join(root, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  const installed = join(root, 'node_modules', PACKAGE);
  mkdirSync(installed, { recursive: true });
  cpSync(builtApp(), join(installed, 'dist'), { recursive: true });
  copyFileSync(join(ROOT, 'package.json'), join(installed, 'package.json'));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name === 'prettier' || name.startsWith('.')) continue;
    symlinkSync(realpathSync(join(ROOT, 'node_modules', name)), join(root, 'node_modules', name));
  }
  return root;
}

/** The environment of a process of the project's own: no variable of this Jest run. */
const env = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('JEST_')),
);

/** Runs a file with node in the project, as its bin would: exit code and output. */
function run(root: string, script: string, args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      [join(root, 'node_modules', script), ...args],
      { cwd: root, env, timeout: 3 * 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** `npx tool-invocation-service ...` in the project: the CLI it installed. */
const cli = (root: string, ...args: string[]) => run(root, `${PACKAGE}/dist/cli.js`, args);

const textOf = (root: string, path: string) => readFileSync(join(root, path), 'utf8');
const manifestOf = (root: string) =>
  JSON.parse(textOf(root, 'package.json')) as { scripts: Record<string, string> };

/** What the setup writes in a project that has none of it. */
const SET_UP = [
  'Created jest.config.js',
  'Created tsconfig.json',
  'Updated package.json (scripts: test, typecheck)',
];

const SET_UP_FILES = ['jest.config.js', 'tsconfig.json', 'package.json'];

/** The projects the tests made, removed after them. */
const roots: string[] = [];
const project = (...args: Parameters<typeof teamProject>) => {
  roots.push(teamProject(...args));
  return roots[roots.length - 1];
};
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

describe('cli tools init (e2e)', () => {
  it(
    'writes what an empty project needs, then keeps it: a second run writes nothing',
    async () => {
      const root = project();
      const first = await cli(root, 'tools', 'init');
      expect(first.stderr).toBe('');
      expect(first.stdout).toBe(
        [...SET_UP, `Next: npx ${PACKAGE} tools new <name>`, ''].join('\n'),
      );
      expect(first.code).toBe(0);
      expect(manifestOf(root).scripts).toEqual({ test: 'jest', typecheck: 'tsc --noEmit' });
      expect(JSON.parse(textOf(root, 'tsconfig.json'))).toMatchObject({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' },
      });
      expect(textOf(root, 'jest.config.js')).toContain("'@swc/jest'");

      const written = SET_UP_FILES.map((path) => textOf(root, path));
      const second = await cli(root, 'tools', 'init');
      expect(second.stdout).toBe(
        [
          "Kept jest.config.js (the project's own)",
          "Kept tsconfig.json (the project's own)",
          'Kept package.json\'s test script "jest" (the project\'s own)',
          'Kept package.json\'s typecheck script "tsc --noEmit" (the project\'s own)',
          `Next: npx ${PACKAGE} tools new <name>`,
          '',
        ].join('\n'),
      );
      expect(second.code).toBe(0);
      expect(SET_UP_FILES.map((path) => textOf(root, path))).toEqual(written);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    "never overwrites the project's own files: it says what it kept",
    async () => {
      const tsconfig = '{ "compilerOptions": { "strict": false } }\n';
      const manifest = { ...NPM_INIT, scripts: { test: 'mocha' } };
      const root = project(manifest, { 'tsconfig.json': tsconfig });
      const result = await cli(root, 'tools', 'init');
      expect(result.stdout).toBe(
        [
          'Created jest.config.js',
          'Updated package.json (scripts: typecheck)',
          "Kept tsconfig.json (the project's own)",
          'Kept package.json\'s test script "mocha" (the project\'s own)',
          `Next: npx ${PACKAGE} tools new <name>`,
          '',
        ].join('\n'),
      );
      expect(result.code).toBe(0);
      expect(textOf(root, 'tsconfig.json')).toBe(tsconfig);
      expect(manifestOf(root).scripts).toEqual({ test: 'mocha', typecheck: 'tsc --noEmit' });
    },
    CLI_TIMEOUT_MS,
  );
});

describe('cli tools init refusing (e2e)', () => {
  it(
    'refuses a checkout of the service and a folder not on the package: exit 2, nothing written',
    async () => {
      const checkout = project();
      mkdirSync(join(checkout, 'src'));
      writeFileSync(join(checkout, 'src/tools.ts'), 'export const TOOL_MODULES = [];\n');
      const refused = await cli(checkout, 'tools', 'init');
      expect(refused.stderr).toMatch(
        /^error: .* is a checkout of the service, whose configuration/,
      );
      expect(refused.code).toBe(2);
      const elsewhere = project({ name: 'x', devDependencies: { jest: '30' } });
      const outside = await cli(elsewhere, 'tools', 'init');
      expect(outside.stderr).toMatch(/^error: no src\/tools\.ts and no dependency on/);
      expect(outside.code).toBe(2);
      expect(readdirSync(checkout).sort()).toEqual(['node_modules', 'package.json', 'src']);
      expect(readdirSync(elsewhere).sort()).toEqual(['node_modules', 'package.json']);
    },
    CLI_TIMEOUT_MS,
  );
});

describe('cli tools new in a project without Prettier or Jest configuration (e2e)', () => {
  let root: string;
  let first: Awaited<ReturnType<typeof cli>>;
  let second: Awaited<ReturnType<typeof cli>>;

  beforeAll(async () => {
    root = project();
    first = await cli(root, 'tools', 'new', 'word_count', '--cost', '2');
    second = await cli(root, 'tools', 'new', 'summarize', '--async');
  }, 2 * CLI_TIMEOUT_MS);

  it('has no Prettier to find, from the project or from the CLI it installed', () => {
    const cliFolder = join(root, 'node_modules', PACKAGE, 'dist/transports/cli');
    for (const from of [root, cliFolder]) {
      expect(() => require.resolve('prettier', { paths: [from] })).toThrow(
        /Cannot (find|resolve) module 'prettier'/,
      );
    }
  });

  it('sets the project up first, then writes the tool unformatted: exit 0', () => {
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe(
      [
        ...SET_UP,
        'Created src/tools/word_count.tool.ts',
        'Created test/word_count.e2e-spec.ts',
        'Not formatted: no Prettier in this project (with it installed, tools new formats what it writes)',
        'Next: npx jest test/word_count.e2e-spec.ts',
        '',
      ].join('\n'),
    );
    expect(first.code).toBe(0);
    expect(textOf(root, 'src/tools/word_count.tool.ts')).toContain(
      `import { ApiProperty, defineTool, StringField } from '${PACKAGE}';`,
    );
  });

  it('sets up nothing again once the project has its Jest configuration', () => {
    expect(second.stdout).toMatch(
      /^Created src\/tools\/summarize\.tool\.ts\nCreated test\/summarize\.e2e-spec\.ts\nNot formatted: /,
    );
    expect(second.code).toBe(0);
  });

  it(
    'writes specs its own `Next: npx jest …` finds and passes',
    async () => {
      const jest = await run(root, 'jest/bin/jest.js', ['--ci', 'test/word_count.e2e-spec.ts']);
      expect(jest.stderr).toMatch(/^Tests: +6 passed, 6 total$/m);
      expect(jest.code).toBe(0);
    },
    3 * 60_000,
  );
});
