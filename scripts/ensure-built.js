#!/usr/bin/env node
// `npm start`, `npm run cli` and `npm run build` come here, and so does the test run's global
// setup. A build is made only when it is missing or older than what it is built from: any file
// under src/ (and console/ for dist/), the tsconfig files, .swcrc, nest-cli.json or package.json
// newer than its last successful build. A second `npm start` with nothing changed starts at once
// instead of spending ~9 s on the same build. `--force` builds in any case (npm run build). The
// build's output goes to stderr, so that the CLI's `--json` output on stdout stays clean. An
// installation without dev dependencies (npm prune --omit=dev) ships dist/ already built: without
// the build tools, a dist/ that is there is used as it is.
//
// Two builds, each with its own output folder and stamp:
// - dist/: `nest build` (tsc, type-checked), then the operator console (scripts/build-console.js,
//   into dist/console-ui): what `npm start`, the CLI, the image and the bench run;
// - dist-test/ (`--for-tests`): `nest build --builder swc`, what the test suites spawn (the compiled
//   CLI and server). SWC compiles without type-checking, in a fraction of tsc's time: the type
//   check is `npm run lint`'s and `npm run build`'s, as it is for the specs, which jest compiles
//   file by file. The console the suites serve is dist/'s.
//
// NEST_BIN and CONSOLE_BUILD name other entries to run for the two steps (the test of this script
// runs fakes).
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, utimesSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..');

/** What each build runs and leaves. */
const BUILDS = {
  dist: { outDir: 'dist', nestArgs: ['build'], withConsole: true },
  tests: {
    outDir: 'dist-test',
    nestArgs: ['build', '--builder', 'swc', '--path', 'tsconfig.test-build.json'],
    withConsole: false,
  },
};
/** What every build is built from. */
const INPUTS = [
  'src',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.test-build.json',
  '.swcrc',
  'nest-cli.json',
  'package.json',
];
/** What a build leaves that the scripts run. */
const ENTRY_POINTS = ['main.js', 'cli.js'];
/** The console's sources, and what its build leaves in dist/ (console-ui/, served at /console). */
const CONSOLE = 'console';
const CONSOLE_OUTPUT = join('console-ui', 'index.html');
/** What the console's build writes into its sources: the service's API as TypeScript types. */
const CONSOLE_TYPES = join(CONSOLE, 'src', 'api', 'openapi.d.ts');

/** Whether `build` under `root` includes the console: dist/, in a checkout that has one. */
function hasConsole(root, build) {
  return build.withConsole && existsSync(join(root, CONSOLE));
}

/** What `build` under `root` leaves, relative to its output folder. */
function outputsOf(root, build) {
  return hasConsole(root, build) ? [...ENTRY_POINTS, CONSOLE_OUTPUT] : ENTRY_POINTS;
}
/**
 * Written after a successful build, with the time the build started as its mtime: a file saved
 * while the build ran is newer, so the next start builds again. `nest build` empties the output
 * folder first (deleteOutDir), so a failed build leaves no stamp.
 */
const STAMP = '.build-stamp';

/** The newest file at or below `path`, or undefined when there is none. */
function newestFile(path) {
  if (!existsSync(path)) return undefined;
  const stat = statSync(path);
  if (!stat.isDirectory()) return { path, mtimeMs: stat.mtimeMs };
  let newest;
  for (const entry of readdirSync(path)) {
    const found = newestFile(join(path, entry));
    if (found && (!newest || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  return newest;
}

/** Why `build` under `root` must be made, or undefined when it is up to date. */
function staleReason(root = ROOT, build = BUILDS.dist) {
  const missing = [STAMP, ...outputsOf(root, build)]
    .map((file) => join(build.outDir, file))
    .find((file) => !existsSync(join(root, file)));
  if (missing) return `${missing} is missing`;
  const built = statSync(join(root, build.outDir, STAMP)).mtimeMs;
  for (const input of hasConsole(root, build) ? [...INPUTS, CONSOLE] : INPUTS) {
    const newest = newestFile(join(root, input));
    if (newest && newest.mtimeMs > built) {
      return `${relative(root, newest.path)} changed since the last build`;
    }
  }
  return undefined;
}

function nestBin(root) {
  if (process.env.NEST_BIN) return process.env.NEST_BIN;
  try {
    return require.resolve('@nestjs/cli/bin/nest.js', { paths: [root] });
  } catch {
    return undefined;
  }
}

/**
 * Runs nest for `build` in `root`, then the console's build where it has one, then stamps its
 * output with the time the build started.
 */
function make(root, nest, build) {
  const started = new Date();
  execFileSync(process.execPath, [nest, ...build.nestArgs], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  if (hasConsole(root, build)) {
    const consoleBuild = process.env.CONSOLE_BUILD || join(root, 'scripts', 'build-console.js');
    execFileSync(process.execPath, [consoleBuild], { cwd: root, stdio: ['ignore', 2, 2] });
    // The console's types are the build's own output, written when the API changed (a new tool):
    // dated to the build's start, so that they do not make the next start build again.
    const types = join(root, CONSOLE_TYPES);
    if (existsSync(types) && statSync(types).mtimeMs > started.getTime()) {
      utimesSync(types, started, started);
    }
  }
  const stamp = join(root, build.outDir, STAMP);
  writeFileSync(stamp, `${started.toISOString()}\n`);
  utimesSync(stamp, started, started);
}

/**
 * Makes a build under `root` when it is stale (or `force`): dist/, or with `forTests` the test
 * suites' build; true when it built.
 */
function ensureBuilt(root = ROOT, { force = false, forTests = false } = {}) {
  const build = forTests ? BUILDS.tests : BUILDS.dist;
  const reason = force ? 'asked to' : staleReason(root, build);
  if (!reason) return false;
  const nest = nestBin(root);
  if (!nest) {
    const there = outputsOf(root, build).every((file) =>
      existsSync(join(root, build.outDir, file)),
    );
    if (!force && there) return false;
    throw new Error(
      `${build.outDir}/ is missing and the build tools are not installed: run npm ci && npm run build`,
    );
  }
  process.stderr.write(`Building ${build.outDir}/ (${reason})\n`);
  make(root, nest, build);
  return true;
}

module.exports = { BUILDS, ensureBuilt, staleReason };

if (require.main === module) {
  try {
    ensureBuilt(ROOT, {
      force: process.argv.includes('--force'),
      forTests: process.argv.includes('--for-tests'),
    });
  } catch (error) {
    // A failed build has already printed its errors; the exit code is what npm reports.
    if (!error.status) process.stderr.write(`error: ${error.message}\n`);
    process.exit(error.status || 1);
  }
}
