#!/usr/bin/env bash
# `npm run test:kit-project` (and `.ci/run`): the test kit as a team uses it, from a project that is
# not this repository. Packs the package (`npm pack`), makes a scratch project in a temporary folder
# that installs the tarball (test/kit-project/: a supertest suite on the kit, a tsconfig and a Jest
# config; its package.json is written here with the repository's versions), then: the package's two
# entries load with `require` and with `import`; the package's generator writes two tools and their
# specs there (`npx tool-invocation-service tools new`); `tsc --noEmit` type-checks them and the
# suite against the shipped .d.ts files; Jest runs the generated specs (on SQLite) and the suite (the
# generated word_count over REST and MCP of both eras, on SQLite and on a redis-server the kit
# starts). KEEP_KIT_PROJECT=1 keeps the folder.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
started=$SECONDS

# dist/ as `npm run build` makes it, unless it is up to date (.ci/run has just built it).
node scripts/ensure-built.js

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tis-kit-project-XXXXXX")
if [ "${KEEP_KIT_PROJECT:-}" = 1 ]; then
  echo "kit project: keeping $WORK"
else
  trap 'cleaned=$SECONDS; rm -rf "$WORK"; echo "kit project: removed in $((SECONDS - cleaned)) s"' EXIT
fi

TARBALL=$WORK/$(npm pack --silent --pack-destination "$WORK" | tail -n 1)
echo "kit project: packed $(basename "$TARBALL") ($(du -k "$TARBALL" | cut -f1) KiB)"

PROJECT=$WORK/scratch
cp -r test/kit-project "$PROJECT"

# The project's package.json: the tarball, and what a team's suite needs, at the versions this
# repository uses. Its install scripts reviewed (`npm install-scripts approve|deny`), as a team's
# would be: npm 11 runs an unreviewed one with a notice (so does the repository's `npm ci`), skips
# a denied one. better-sqlite3's builds its native module (the kit's SQLite store needs it: no
# prebuilt binary can be downloaded here, so node-gyp compiles it, ~1 min); @scarf/scarf's only
# reports the installation over the network.
node - "$ROOT/package.json" "$TARBALL" "$PROJECT/package.json" <<'JS'
const { readFileSync, writeFileSync } = require('node:fs');
const [repoManifest, tarball, out] = process.argv.slice(2);
const repo = JSON.parse(readFileSync(repoManifest, 'utf8'));
const version = (name) => {
  const found = repo.devDependencies[name] ?? repo.dependencies[name];
  if (!found) throw new Error(`${name} is not a dependency of the repository`);
  return found;
};
const devDependencies = { 'tool-invocation-service': `file:${tarball}` };
for (const name of [
  '@modelcontextprotocol/client',
  '@modelcontextprotocol/sdk',
  '@nestjs/testing',
  '@swc/core',
  '@swc/jest',
  '@types/jest',
  '@types/node',
  '@types/supertest',
  'jest',
  'prettier',
  'supertest',
  'typescript',
]) {
  devDependencies[name] = version(name);
}
const manifest = {
  name: 'tis-kit-scratch-project',
  version: '0.0.0',
  private: true,
  scripts: { test: 'jest', typecheck: 'tsc --noEmit' },
  devDependencies,
  allowScripts: {
    'better-sqlite3': true,
    '@swc/core': true,
    protobufjs: true,
    '@scarf/scarf': false,
  },
};
writeFileSync(out, `${JSON.stringify(manifest, null, 2)}\n`);
JS

cd "$PROJECT"
echo "kit project: npm install in $PROJECT"
npm install --prefer-offline --no-audit --no-fund --loglevel=error
test -f node_modules/better-sqlite3/build/Release/better_sqlite3.node || {
  echo "kit project: better-sqlite3's native module was not built" >&2
  exit 1
}

echo "kit project: the entries load with require and import"
node -e '
  const kit = require("tool-invocation-service/testing");
  const main = require("tool-invocation-service");
  if (typeof kit.startTestApp !== "function") throw new Error("require: no startTestApp");
  if (typeof main.defineTool !== "function") throw new Error("require: no defineTool");
  console.log("  require: startTestApp, defineTool");
'
node --input-type=module -e '
  import { startTestApp } from "tool-invocation-service/testing";
  import { defineTool } from "tool-invocation-service";
  if (typeof startTestApp !== "function") throw new Error("import: no startTestApp");
  if (typeof defineTool !== "function") throw new Error("import: no defineTool");
  console.log("  import: startTestApp, defineTool");
'

# The tools, as a team writes them: the package's generator, from its bin (formatted by the
# project's Prettier). word_count answers in the request; summarize may run in the background.
echo "kit project: npx tool-invocation-service tools new"
npx --no-install tool-invocation-service tools new word_count --cost 2
npx --no-install tool-invocation-service tools new summarize --async --timeout-ms 60000

echo "kit project: tsc --noEmit (the shipped .d.ts files)"
npx --no-install tsc --noEmit

echo "kit project: jest"
npx --no-install jest --ci
echo "kit project: done in $((SECONDS - started)) s"
