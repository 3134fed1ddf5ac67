#!/usr/bin/env node
// `npm start`, `npm run cli` and `npm run build` come here. dist/ is built (nest build, then the
// operator console: scripts/build-console.js) only when it is missing or older than what it is
// built from: any file under src/ or console/, tsconfig*.json, nest-cli.json or package.json newer
// than the last successful build. A second `npm start` with
// nothing changed starts at once instead of spending ~9 s on the same build. `--force` builds
// in any case (npm run build). The build's output goes to stderr, so that the CLI's `--json`
// output on stdout stays clean. An installation without dev dependencies (npm prune --omit=dev)
// ships dist/ already built: without the build tools, a dist/ that is there is used as it is.
//
// NEST_BIN and CONSOLE_BUILD name other entries to run for the two steps (the test of this script
// runs fakes).
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, utimesSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..');
/** What dist/ is built from. */
const INPUTS = [
  'src',
  'console',
  'tsconfig.json',
  'tsconfig.build.json',
  'nest-cli.json',
  'package.json',
];
/** What a build leaves that the scripts run. */
const OUTPUTS = [join('dist', 'main.js'), join('dist', 'cli.js')];
/** What the console's build leaves, in a checkout that has the console. */
const CONSOLE_OUTPUT = join('dist', 'console-ui', 'index.html');

function outputsOf(root) {
  return existsSync(join(root, 'console')) ? [...OUTPUTS, CONSOLE_OUTPUT] : OUTPUTS;
}
/**
 * Written after a successful build, with the time the build started as its mtime: a file saved
 * while the build ran is newer, so the next start builds again. `nest build` empties dist/ first
 * (deleteOutDir), so a failed build leaves no stamp.
 */
const STAMP = join('dist', '.build-stamp');

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

/** Why dist/ under `root` must be built, or undefined when it is up to date. */
function staleReason(root = ROOT) {
  const missing = [STAMP, ...outputsOf(root)].find((file) => !existsSync(join(root, file)));
  if (missing) return `${missing} is missing`;
  const built = statSync(join(root, STAMP)).mtimeMs;
  for (const input of INPUTS) {
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

/** The console's build (scripts/build-console.js) of a checkout that has the console. */
function consoleBuilder(root) {
  if (!existsSync(join(root, 'console'))) return undefined;
  return process.env.CONSOLE_BUILD || join(root, 'scripts', 'build-console.js');
}

/**
 * Runs nest build in `root`, then the console's build, then stamps dist/ with the time the build
 * started.
 */
function build(root, nest) {
  const started = new Date();
  execFileSync(process.execPath, [nest, 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
  const consoleBuild = consoleBuilder(root);
  if (consoleBuild) {
    execFileSync(process.execPath, [consoleBuild], { cwd: root, stdio: ['ignore', 2, 2] });
  }
  const stamp = join(root, STAMP);
  writeFileSync(stamp, `${started.toISOString()}\n`);
  utimesSync(stamp, started, started);
}

/** Builds dist/ under `root` when it is stale (or `force`); true when it built. */
function ensureBuilt(root = ROOT, { force = false } = {}) {
  const reason = force ? 'asked to' : staleReason(root);
  if (!reason) return false;
  const nest = nestBin(root);
  if (!nest) {
    if (!force && outputsOf(root).every((file) => existsSync(join(root, file)))) return false;
    throw new Error('dist/ is missing and the build tools are not installed: run npm ci && npm run build');
  }
  process.stderr.write(`Building dist/ (${reason})\n`);
  build(root, nest);
  return true;
}

module.exports = { ensureBuilt, staleReason };

if (require.main === module) {
  try {
    ensureBuilt(ROOT, { force: process.argv.includes('--force') });
  } catch (error) {
    // A failed build has already printed its errors; the exit code is what npm reports.
    if (!error.status) process.stderr.write(`error: ${error.message}\n`);
    process.exit(error.status || 1);
  }
}
