#!/usr/bin/env node
// `npm run lint` runs this first (prelint): console/src/api/openapi.d.ts, the console's types of
// the service's API, which the lint's type check and ESLint read. The file is generated, never
// tracked (.gitignore), so a fresh clone has none until a build or this makes it: from the OpenAPI
// document of the tests' build (dist-test/, SWC, no type check: made here when it is stale, as the
// test run's setup makes it), written only when it changed. `npm run build` writes the same file
// from dist/ (scripts/build-console.js).
const { join } = require('node:path');
const { ensureBuilt } = require('./ensure-built');
const { generateTypes } = require('./build-console');

const ROOT = join(__dirname, '..');

async function main() {
  ensureBuilt(ROOT, { forTests: true });
  await generateTypes(join(ROOT, 'dist-test'));
}

// The app built for the OpenAPI document may leave timers behind: the process ends here.
main().then(
  () => process.exit(0),
  (error) => {
    if (!error.status) process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(error.status || 1);
  },
);
