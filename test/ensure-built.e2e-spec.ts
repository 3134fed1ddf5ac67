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

const ROOT = join(__dirname, '..');
const SCRIPT = join(ROOT, 'scripts', 'ensure-built.js');
/** What dist/ is built from, in a checkout of the test's own. */
const INPUTS = [
  'src/main.ts',
  'src/auth/scopes.ts',
  'console/src/main.tsx',
  'tsconfig.json',
  'tsconfig.build.json',
  'nest-cli.json',
  'package.json',
];

/**
 * A `nest` that builds in no time: it records that it ran, then does what `nest build` does to
 * dist/ (emptied first, as deleteOutDir asks, then the two entry points written); FAIL=1 fails.
 */
const FAKE_NEST = `
const fs = require('node:fs');
fs.appendFileSync(process.env.CALLS, process.argv.slice(2).join(' ') + '\\n');
fs.rmSync('dist', { recursive: true, force: true });
if (process.env.FAIL) { console.error('src/main.ts: error TS1005'); process.exit(1); }
fs.mkdirSync('dist');
fs.writeFileSync('dist/main.js', '');
fs.writeFileSync('dist/cli.js', '');
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
`;

/** A checkout of its own, the script in its scripts/, with what dist/ is built from. */
function checkout(): string {
  const root = mkdtempSync(join(tmpdir(), 'tis-build-'));
  mkdirSync(join(root, 'scripts'));
  copyFileSync(SCRIPT, join(root, 'scripts', 'ensure-built.js'));
  mkdirSync(join(root, 'src', 'auth'), { recursive: true });
  mkdirSync(join(root, 'console', 'src'), { recursive: true });
  for (const file of INPUTS) writeFileSync(join(root, file), '{}\n');
  writeFileSync(join(root, 'fake-nest.js'), FAKE_NEST);
  writeFileSync(join(root, 'fake-console.js'), FAKE_CONSOLE);
  // Every input a while ago: what a later change touches is newer, whatever the clock's grain.
  const past = new Date(Date.now() - 60_000);
  for (const file of INPUTS) utimesSync(join(root, file), past, past);
  return root;
}

/** Runs the script as `npm start`'s prestart does; `builds` counts the fake nest's runs so far. */
function ensureBuilt(root: string, args: string[] = [], env: Record<string, string> = {}) {
  const calls = join(root, 'calls.log');
  const run = spawnSync(process.execPath, [join(root, 'scripts', 'ensure-built.js'), ...args], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      NEST_BIN: join(root, 'fake-nest.js'),
      CONSOLE_BUILD: join(root, 'fake-console.js'),
      CALLS: calls,
      ...env,
    },
    encoding: 'utf8',
  });
  const steps = existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean) : [];
  // Each build is nest's, then the console's: counted by nest's.
  const builds = steps.filter((step) => step !== 'console').length;
  return { status: run.status, stderr: run.stderr, builds, steps };
}

const stampTime = (root: string) => statSync(join(root, 'dist', '.build-stamp')).mtimeMs;

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
    writeFileSync(join(root, 'src', 'auth', 'new.ts'), 'export {};\n');
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

  it('is what npm start, npm run cli, npm run build and the test run use', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.prestart).toBe('node scripts/ensure-built.js');
    expect(scripts.cli).toBe('node scripts/ensure-built.js && node dist/cli.js');
    expect(scripts.build).toBe('node scripts/ensure-built.js --force');
    // The run's global setup built this checkout's dist/ by the same check: it is up to date, and
    // a second start builds nothing (the real nest, which would take seconds, is not run).
    const stamped = stampTime(ROOT);
    const run = spawnSync(process.execPath, [SCRIPT], { cwd: ROOT, encoding: 'utf8' });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(stampTime(ROOT)).toBe(stamped);
  });
});
