import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { CLI_TIMEOUT_MS, runCli } from '../support/cli';

const ROOT = resolve(__dirname, '../..');

/** What a checkout needs for the generator, the lint of what it writes and the spec it writes. */
const COPIED = [
  'src',
  'test/support',
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.test-build.json',
  '.swcrc',
  'eslint.config.mjs',
  '.prettierrc',
  '.dependency-cruiser.cjs',
  'jest.config.js',
];

/** A copy of the checkout in a temporary directory, its node_modules the repository's. */
function scratchCheckout(): string {
  const root = mkdtempSync(join(tmpdir(), 'tis-tools-new-'));
  for (const path of COPIED) cpSync(join(ROOT, path), join(root, path), { recursive: true });
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(root, 'node_modules'));
  return root;
}

/** Every file of a checkout (node_modules aside) and its text. */
function filesOf(root: string, dir = root, into = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === join(root, 'node_modules')) continue;
    if (statSync(path).isDirectory()) filesOf(root, path, into);
    else into.set(relative(root, path), readFileSync(path, 'utf8'));
  }
  return into;
}

/** What changed between two listings: the files added, changed and removed. */
function changes(before: Map<string, string>, after: Map<string, string>) {
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  return {
    added: paths.filter((path) => !before.has(path)),
    changed: paths.filter((path) => before.has(path) && before.get(path) !== after.get(path)),
    removed: paths.filter((path) => !after.has(path)),
  };
}

/** Runs a package's bin with node in `cwd`; its exit code and output. */
function run(cwd: string, bin: string, args: string[], timeout: number) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('JEST_')),
  );
  return new Promise<{ code: number; output: string }>((done) => {
    execFile(
      process.execPath,
      [join(ROOT, 'node_modules', bin), ...args],
      { cwd, env, timeout, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        done({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

/** TOOL_MODULES' entries and the imports of a src/tools.ts, and the rest of its text. */
function toolList(text: string) {
  const list = /export const TOOL_MODULES: Type\[\] = \[([^\]]*)\];/.exec(text) as RegExpExecArray;
  const imports = text.match(/^import [^;]*;$/gm) ?? [];
  const rest = imports.reduce((left, line) => left.replace(line, ''), text.replace(list[0], ''));
  return {
    entries: list[1]
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
    imports,
    rest,
  };
}

const MINUTES = 60_000;

/**
 * `cli tools new` (the compiled CLI, as `npm run cli` runs it) in a copy of the checkout: it
 * writes the tool, its line in src/tools.ts and its spec, and nothing else; what it writes
 * passes Prettier, ESLint, the tiers and the type check, and its spec passes, as written.
 * Slow (a type check and a Jest run in the copy): `npm run test:matrix` runs it, once.
 */
/** What `tools new <name>` changes in a checkout: two files more, and the tools' list. */
const oneToolMore = (name: string) => ({
  added: [`src/tools/${name}/${name}.tool.ts`, `test/tools/${name}.e2e-spec.ts`],
  changed: ['src/tools.ts'],
  removed: [],
});

describe('cli tools new (e2e)', () => {
  let root: string;
  /** The checkout before, between and after the two commands; what the first printed. */
  let before: Map<string, string>;
  let middle: Map<string, string>;
  let after: Map<string, string>;
  let first: Awaited<ReturnType<typeof runCli>>;

  // The two commands run first, whatever the order of the tests (the run is randomized): each test
  // reads what they wrote, and the type check's and Jest's own files come after the snapshots.
  beforeAll(async () => {
    root = scratchCheckout();
    before = filesOf(root);
    first = await runCli(['tools', 'new', 'word_tally', '--cost', '3'], {}, '', root);
    middle = filesOf(root);
    const second = ['tools', 'new', 'slow_tally', '--async', '--timeout-ms', '120000'];
    expect((await runCli(second, {}, '', root)).code).toBe(0);
    after = filesOf(root);
  }, 2 * CLI_TIMEOUT_MS);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const WRITTEN = [
    'src/tools/word_tally/word_tally.tool.ts',
    'test/tools/word_tally.e2e-spec.ts',
    'src/tools/slow_tally/slow_tally.tool.ts',
    'test/tools/slow_tally.e2e-spec.ts',
    'src/tools.ts',
  ];

  it('writes the tool, its spec and its line in src/tools.ts, and nothing else', () => {
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(
      [
        'Created src/tools/word_tally/word_tally.tool.ts',
        'Created test/tools/word_tally.e2e-spec.ts',
        'Updated src/tools.ts (TOOL_MODULES)',
        'Next: npx jest test/tools/word_tally.e2e-spec.ts --selectProjects e2e',
        '',
      ].join('\n'),
    );
    expect(changes(before, middle)).toEqual(oneToolMore('word_tally'));
    const tool = middle.get('src/tools/word_tally/word_tally.tool.ts');
    expect(tool).toContain('export const WordTallyToolModule = defineTool({');
    expect(tool).toContain("name: 'word_tally',");
    expect(tool).toContain('cost: 3,');
    expect(tool).toContain('timeoutMs: 30_000,');
    expect(tool).toContain("async: 'never',");
    expect(middle.get('test/tools/word_tally.e2e-spec.ts')).toContain('const COST = 3;');

    expect(changes(middle, after)).toEqual(oneToolMore('slow_tally'));
    const slow = after.get('src/tools/slow_tally/slow_tally.tool.ts');
    expect(slow).toContain("async: 'allowed',");
    expect(slow).toContain('timeoutMs: 120_000,');
    expect(slow).toContain('await nextTurn(undefined, { signal });');

    // src/tools.ts: the two imports and the two entries more, its other text as it was.
    const was = toolList(before.get('src/tools.ts') as string);
    const is = toolList(after.get('src/tools.ts') as string);
    expect(is.entries).toEqual([...was.entries, 'WordTallyToolModule', 'SlowTallyToolModule']);
    expect(is.imports).toEqual([
      ...was.imports,
      "import { WordTallyToolModule } from './tools/word_tally/word_tally.tool';",
      "import { SlowTallyToolModule } from './tools/slow_tally/slow_tally.tool';",
    ]);
    expect(is.rest.replace(/\n+/g, '\n')).toBe(was.rest.replace(/\n+/g, '\n'));
  });

  it(
    'writes what Prettier, ESLint and the tiers of src/ pass',
    async () => {
      const prettier = await run(
        root,
        'prettier/bin/prettier.cjs',
        ['--check', ...WRITTEN],
        MINUTES,
      );
      expect(prettier.output).toContain('All matched files use Prettier code style!');
      expect(prettier.code).toBe(0);
      const eslint = await run(
        root,
        'eslint/bin/eslint.js',
        ['--max-warnings', '0', ...WRITTEN],
        3 * MINUTES,
      );
      expect(eslint.output).toBe('');
      expect(eslint.code).toBe(0);
      const depcruise = await run(
        root,
        'dependency-cruiser/bin/dependency-cruise.mjs',
        ['src', 'test', '--config', '.dependency-cruiser.cjs'],
        MINUTES,
      );
      expect(depcruise.output).toContain('no dependency violations found');
      expect(depcruise.code).toBe(0);
    },
    5 * MINUTES,
  );

  it(
    'writes what type-checks (tsc --noEmit)',
    async () => {
      const tsc = await run(
        root,
        'typescript/bin/tsc',
        ['--noEmit', '-p', 'tsconfig.json'],
        3 * MINUTES,
      );
      expect(tsc.output).toBe('');
      expect(tsc.code).toBe(0);
    },
    3 * MINUTES,
  );

  it(
    'writes specs that pass as written',
    async () => {
      // The repository's Jest configuration without its global setup: the builds it makes are for
      // the specs that spawn the compiled CLI and server, which the written ones do not.
      writeFileSync(
        join(root, 'jest.scratch.config.js'),
        "module.exports = { ...require('./jest.config.js'), globalSetup: undefined };\n",
      );
      const specs = WRITTEN.filter((path) => path.endsWith('.e2e-spec.ts'));
      const jest = await run(
        root,
        'jest/bin/jest.js',
        ['--config', 'jest.scratch.config.js', '--selectProjects', 'e2e', '--ci'].concat([
          '--runTestsByPath',
          ...specs,
        ]),
        3 * MINUTES,
      );
      // Six tests a tool, and the background call of the --async one.
      expect(jest.output).toMatch(/^Tests: +13 passed, 13 total$/m);
      expect(jest.code).toBe(0);
    },
    3 * MINUTES,
  );
});

describe('cli tools new refusing (e2e)', () => {
  let root: string;
  let before: Map<string, string>;

  beforeAll(() => {
    root = scratchCheckout();
    before = filesOf(root);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each([
    [['Word_Tally'], /^error: 'Word_Tally' is not a tool's name: \[a-z\]\[a-z0-9_\]\*/],
    [['word-tally'], /^error: 'word-tally' is not a tool's name/],
    [['greet'], /^error: a tool named 'greet' exists already: choose another name\n$/],
    [['config_get'], /^error: a tool named 'config_get' exists already/],
    [['doctor', '--async'], /^error: a tool named 'doctor' exists already/],
    [['word_tally', '--cost', '0'], /^error: option '--cost <n>' argument '0' is invalid/],
    [['word_tally', '--cost', '2.5'], /^error: option '--cost <n>' argument '2\.5' is invalid/],
    [['word_tally', '--timeout-ms', '0'], /^error: option '--timeout-ms <n>' argument '0'/],
    [[], /^error: missing required argument 'name'\n$/],
  ])(
    'tools new %j: exit 2, nothing written',
    async (args, message) => {
      const result = await runCli(['tools', 'new', ...args], {}, '', root);
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
      expect(result.code).toBe(2);
      expect(changes(before, filesOf(root))).toEqual({ added: [], changed: [], removed: [] });
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'refuses to run but at the root of a checkout or of a project on the package: exit 2',
    async () => {
      const elsewhere = mkdtempSync(join(tmpdir(), 'tis-tools-new-'));
      const result = await runCli(['tools', 'new', 'word_tally'], {}, '', elsewhere);
      expect(result.stderr).toMatch(
        /^error: no src\/tools\.ts and no dependency on tool-invocation-service in .*: run `tools new` at the root of a checkout/,
      );
      expect(result.code).toBe(2);
      expect(readdirSync(elsewhere)).toEqual([]);
    },
    CLI_TIMEOUT_MS,
  );
});
