#!/usr/bin/env node
// `npm run cli` runs the compiled CLI (node dist/cli.js): this builds it first when dist/ is missing,
// with the build's output on stderr so that `--json` output on stdout stays clean. An installation
// without dev dependencies (npm prune --omit=dev) must ship dist/ already built.
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
if (!existsSync(join(root, 'dist', 'cli.js'))) {
  let nest;
  try {
    nest = require.resolve('@nestjs/cli/bin/nest.js', { paths: [root] });
  } catch {
    process.stderr.write('error: dist/ is missing and the build tools are not installed: run npm ci && npm run build\n');
    process.exit(1);
  }
  execFileSync(process.execPath, [nest, 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
}
