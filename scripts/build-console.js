#!/usr/bin/env node
// Builds the operator console (console/, served at /console) after `nest build`, as
// scripts/ensure-built.js asks:
//   1. the OpenAPI document of the compiled app (no server), as the service serves it;
//   2. console/src/api/openapi.d.ts generated from it by openapi-typescript (written only when it
//      changed, so that an unchanged API leaves the build up to date). It is the build's output,
//      never tracked (.gitignore): `npm run lint` writes it first too (scripts/console-types.js);
//   3. the console type-checked against it (tsc): a change of the API that breaks the console
//      breaks the build;
//   4. Vite's build into dist/console-ui;
//   5. each text file compressed beside itself (.br, .gz), which the service sends when the client
//      accepts it.
// Its output goes to stderr, as the build's does.
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { brotliCompressSync, constants, gzipSync } = require('node:zlib');
const { openApiDocument, openApiTypes } = require('./openapi-document');

const ROOT = join(__dirname, '..');
const CONSOLE = join(ROOT, 'console');
const TYPES = join(CONSOLE, 'src', 'api', 'openapi.d.ts');
const OUT = join(ROOT, 'dist', 'console-ui');
const COMPRESSIBLE = /\.(html|js|css|svg|json|txt)$/;

const HEADER = `// Generated from the service's OpenAPI document (openapi-typescript) by \`npm run build\` and
// \`npm run lint\`, whenever the API changes. Not tracked by git; do not edit.\n\n`;

/** The console's types, from the document of the app compiled into `dist` (dist/ by default). */
async function generateTypes(dist = join(ROOT, 'dist')) {
  const types = await openApiTypes(await openApiDocument(ROOT, dist), HEADER);
  const current = existsSync(TYPES) ? readFileSync(TYPES, 'utf8') : '';
  if (current !== types) {
    writeFileSync(TYPES, types);
    process.stderr.write('console: the API changed; console/src/api/openapi.d.ts written again\n');
  }
}

function typeCheck() {
  const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  execFileSync(process.execPath, [tsc, '-p', join(CONSOLE, 'tsconfig.json')], {
    cwd: ROOT,
    stdio: ['ignore', 2, 2],
  });
}

async function bundle() {
  // A production build whatever NODE_ENV the caller runs under (jest sets `test`, which would
  // bundle React's development build).
  process.env.NODE_ENV = 'production';
  const { build } = await import('vite');
  await build({
    configFile: join(CONSOLE, 'vite.config.mjs'),
    mode: 'production',
    logLevel: 'warn',
  });
}

function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Each text file's brotli and gzip forms beside it, at the strongest settings: made once. */
function compress() {
  for (const file of filesUnder(OUT).filter((f) => COMPRESSIBLE.test(f))) {
    const raw = readFileSync(file);
    writeFileSync(`${file}.gz`, gzipSync(raw, { level: 9 }));
    writeFileSync(
      `${file}.br`,
      brotliCompressSync(raw, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
        },
      }),
    );
  }
}

async function buildConsole() {
  await generateTypes();
  typeCheck();
  await bundle();
  compress();
}

module.exports = { buildConsole, generateTypes };

if (require.main === module) {
  // The app built for the OpenAPI document may leave timers behind: the process ends here.
  buildConsole().then(
    () => process.exit(0),
    (error) => {
      if (!error.status) process.stderr.write(`${error.stack ?? error}\n`);
      process.exit(error.status || 1);
    },
  );
}
