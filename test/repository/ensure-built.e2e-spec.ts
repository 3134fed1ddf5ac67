import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const SCRIPT = join(ROOT, 'scripts', 'ensure-built.js');
/** What the builds are made from, in a checkout of the test's own. */
const INPUTS = [
  'src/main.ts',
  'src/kernel/auth/scopes.ts',
  'console/src/main.tsx',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.test-build.json',
  '.swcrc',
  'nest-cli.json',
  'package.json',
];

/**
 * A `nest` that builds in no time: it records how it was called, then does what `nest build` does
 * to the output folder of the tsconfig it is given (`--path`; dist/ without one): emptied first,
 * as deleteOutDir asks, then the two entry points written. FAIL=1 fails.
 */
const FAKE_NEST = `
const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(process.env.CALLS, args.join(' ') + '\\n');
const tsconfig = args.includes('--path') ? args[args.indexOf('--path') + 1] : undefined;
const out = tsconfig ? JSON.parse(fs.readFileSync(tsconfig, 'utf8')).compilerOptions.outDir : 'dist';
fs.rmSync(out, { recursive: true, force: true });
if (process.env.FAIL) { console.error('src/main.ts: error TS1005'); process.exit(1); }
fs.mkdirSync(out);
fs.writeFileSync(out + '/main.js', '');
fs.writeFileSync(out + '/cli.js', '');
`;

/**
 * The console's build, as fast: it records that it ran, then writes the console's page;
 * FAIL_CONSOLE=1 fails.
 */
const FAKE_CONSOLE = `
const fs = require('node:fs');
fs.appendFileSync(process.env.CALLS, 'console\\n');
if (process.env.FAIL_CONSOLE) { console.error('console/src/app.tsx: error TS2339'); process.exit(1); }
fs.mkdirSync('dist/console-ui', { recursive: true });
fs.writeFileSync('dist/console-ui/index.html', '');
// The API changed (WRITE_TYPES=1): the console's types are written again, as the real build does.
if (process.env.WRITE_TYPES) {
  fs.mkdirSync('console/src/api', { recursive: true });
  fs.writeFileSync('console/src/api/openapi.d.ts', '// ' + Date.now() + '\\n');
}
`;

/** A checkout of its own, the script in its scripts/, with what dist/ is built from. */
function checkout(): string {
  const root = mkdtempSync(join(tmpdir(), 'tis-build-'));
  mkdirSync(join(root, 'scripts'));
  copyFileSync(SCRIPT, join(root, 'scripts', 'ensure-built.js'));
  mkdirSync(join(root, 'src', 'kernel', 'auth'), { recursive: true });
  mkdirSync(join(root, 'console', 'src'), { recursive: true });
  for (const file of INPUTS) writeFileSync(join(root, file), '{}\n');
  writeFileSync(
    join(root, 'tsconfig.test-build.json'),
    JSON.stringify({ compilerOptions: { outDir: 'dist-test' } }),
  );
  writeFileSync(join(root, 'fake-nest.js'), FAKE_NEST);
  writeFileSync(join(root, 'fake-console.js'), FAKE_CONSOLE);
  // Every input a while ago: what a later change touches is newer, whatever the clock's grain.
  const past = new Date(Date.now() - 60_000);
  for (const file of INPUTS) utimesSync(join(root, file), past, past);
  return root;
}

/** Runs the script as `npm start`'s prestart does; `builds` counts the fake nest's runs so far. */
function ensureBuilt(root: string, args: string[] = [], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [join(root, 'scripts', 'ensure-built.js'), ...args], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      NEST_BIN: join(root, 'fake-nest.js'),
      CONSOLE_BUILD: join(root, 'fake-console.js'),
      CALLS: join(root, 'calls.log'),
      ...env,
    },
    encoding: 'utf8',
  });
  const steps = nestCalls(root);
  // Each build of dist/ is nest's, then the console's: counted by nest's.
  const builds = steps.filter((step) => step !== 'console').length;
  return { status: run.status, stderr: run.stderr, builds, steps };
}

/** How the fake nest (and the fake console build: `console`) was called, one line a step. */
function nestCalls(root: string): string[] {
  const calls = join(root, 'calls.log');
  return existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean) : [];
}

const stampTime = (root: string, outDir = 'dist') =>
  statSync(join(root, outDir, '.build-stamp')).mtimeMs;

/** Marks a file as just edited. */
function touch(root: string, file: string): void {
  const now = new Date();
  utimesSync(join(root, file), now, now);
}

describe('npm start and npm run cli build only when needed (scripts/ensure-built.js)', () => {
  let root: string;

  beforeEach(() => {
    root = checkout();
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('builds when dist/ is missing, then not again while nothing changed', () => {
    const first = ensureBuilt(root);
    expect(first).toMatchObject({ status: 0, builds: 1 });
    expect(first.stderr).toBe('Building dist/ (dist/.build-stamp is missing)\n');
    const stamped = stampTime(root);

    for (let i = 0; i < 2; i++) {
      expect(ensureBuilt(root)).toMatchObject({ status: 0, stderr: '', builds: 1 });
    }
    expect(stampTime(root)).toBe(stamped);
  });

  it.each(INPUTS)('builds again once %s changes', (file) => {
    ensureBuilt(root);
    touch(root, file);
    const again = ensureBuilt(root);
    expect(again).toMatchObject({ status: 0, builds: 2 });
    expect(again.stderr).toBe(`Building dist/ (${file} changed since the last build)\n`);
    expect(ensureBuilt(root)).toMatchObject({ stderr: '', builds: 2 });
  });

  it('builds again when a new file appears under src/, or an entry point is gone', () => {
    ensureBuilt(root);
    writeFileSync(join(root, 'src', 'kernel', 'auth', 'new.ts'), 'export {};\n');
    expect(ensureBuilt(root)).toMatchObject({ builds: 2 });
    rmSync(join(root, 'dist', 'cli.js'));
    expect(ensureBuilt(root)).toMatchObject({
      stderr: 'Building dist/ (dist/cli.js is missing)\n',
      builds: 3,
    });
  });

  it('stamps the time the build started: a file saved during the build is built next time', () => {
    ensureBuilt(root);
    const started = stampTime(root);
    // Saved after the build started, before it ended (in seconds: a Date would drop the fraction).
    const during = (started + 5) / 1000;
    utimesSync(join(root, 'src', 'main.ts'), during, during);
    expect(ensureBuilt(root)).toMatchObject({ builds: 2 });
  });

  it('leaves no stamp after a failed build, so the next start builds again', () => {
    const failed = ensureBuilt(root, [], { FAIL: '1' });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('error TS1005');
    expect(existsSync(join(root, 'dist', '.build-stamp'))).toBe(false);
    expect(ensureBuilt(root)).toMatchObject({ status: 0, builds: 2 });
  });

  it('builds the console after the service, in the same build; a failed one leaves no stamp', () => {
    expect(ensureBuilt(root).steps).toEqual(['build', 'console']);
    rmSync(join(root, 'dist', 'console-ui', 'index.html'));
    expect(ensureBuilt(root)).toMatchObject({
      stderr: 'Building dist/ (dist/console-ui/index.html is missing)\n',
      steps: ['build', 'console', 'build', 'console'],
    });
    touch(root, 'console/src/main.tsx');
    const failed = ensureBuilt(root, [], { FAIL_CONSOLE: '1' });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('error TS2339');
    expect(existsSync(join(root, 'dist', '.build-stamp'))).toBe(false);
    expect(ensureBuilt(root)).toMatchObject({ status: 0, builds: 4 });
  });

  it("does not build again for the console's types the build itself wrote (a new tool)", () => {
    expect(ensureBuilt(root, [], { WRITE_TYPES: '1' })).toMatchObject({ status: 0, builds: 1 });
    expect(existsSync(join(root, 'console/src/api/openapi.d.ts'))).toBe(true);
    expect(ensureBuilt(root)).toMatchObject({ status: 0, stderr: '', builds: 1 });
    // Edited by hand, it is an input like any other file of the console.
    touch(root, 'console/src/api/openapi.d.ts');
    expect(ensureBuilt(root)).toMatchObject({ builds: 2 });
  });

  it('builds in any case with --force (npm run build)', () => {
    ensureBuilt(root);
    expect(ensureBuilt(root, ['--force'])).toMatchObject({
      stderr: 'Building dist/ (asked to)\n',
      builds: 2,
    });
  });

  it('uses a dist/ that is there when the build tools are not installed', () => {
    ensureBuilt(root);
    touch(root, 'src/main.ts');
    rmSync(join(root, 'fake-nest.js'));
    const pruned = { NEST_BIN: '' };
    expect(ensureBuilt(root, [], pruned)).toMatchObject({ status: 0, stderr: '', builds: 1 });
    rmSync(join(root, 'dist'), { recursive: true });
    const missing = ensureBuilt(root, [], pruned);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe(
      'error: dist/ is missing and the build tools are not installed: run npm ci && npm run build\n',
    );
  });

  it("builds the test suites' build apart: dist-test/, with SWC, on a stamp of its own", () => {
    ensureBuilt(root);
    const distStamped = stampTime(root);
    const first = ensureBuilt(root, ['--for-tests']);
    expect(first).toMatchObject({ status: 0, builds: 2 });
    expect(first.stderr).toBe('Building dist-test/ (dist-test/.build-stamp is missing)\n');
    // The console is dist/'s alone.
    expect(nestCalls(root)).toEqual([
      'build',
      'console',
      'build --builder swc --path tsconfig.test-build.json',
    ]);
    expect(ensureBuilt(root, ['--for-tests'])).toMatchObject({ status: 0, stderr: '', builds: 2 });
    touch(root, 'console/src/main.tsx');
    expect(ensureBuilt(root, ['--for-tests'])).toMatchObject({ status: 0, stderr: '', builds: 2 });

    touch(root, 'src/main.ts');
    expect(ensureBuilt(root, ['--for-tests'])).toMatchObject({
      stderr: 'Building dist-test/ (src/main.ts changed since the last build)\n',
      builds: 3,
    });
    // dist/ was left alone, and is stale by its own stamp.
    expect(stampTime(root)).toBe(distStamped);
    expect(existsSync(join(root, 'dist', 'main.js'))).toBe(true);
    expect(ensureBuilt(root)).toMatchObject({
      stderr: 'Building dist/ (src/main.ts changed since the last build)\n',
      builds: 4,
    });
  });

  it('is what npm start, npm run cli, npm run build and the test run use', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.prestart).toBe('node scripts/ensure-built.js');
    expect(scripts.cli).toBe('node scripts/ensure-built.js && node dist/cli.js');
    expect(scripts.build).toBe('node scripts/ensure-built.js --force');
    // The run's global setup made this checkout's test build by the same check: it is up to date,
    // and a second check builds nothing (the real nest, which would take a second, is not run).
    const stamped = stampTime(ROOT, 'dist-test');
    const run = spawnSync(process.execPath, [SCRIPT, '--for-tests'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(stampTime(ROOT, 'dist-test')).toBe(stamped);
  });
});
