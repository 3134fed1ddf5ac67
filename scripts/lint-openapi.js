#!/usr/bin/env node
// Lints the OpenAPI document the service serves with Redocly's recommended rules, in every
// configuration that changes it: OAuth off (the default) and on (OAUTH_ISSUERS, which adds the
// protected resource metadata's routes), and with a source (an OpenAPI document read from a file,
// test/support/upstreams/inventory-3.1.yaml: its tools' operations, the upstream's schemas
// converted). Zero errors and zero warnings in each, or exit 1. The
// documents are built from the compiled app (npm run build first), on a throwaway DATA_DIR,
// without listening (no issuer is asked anything); `npm run lint:openapi` runs this, and so does CI.
const { spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { openApiDocument } = require('./openapi-document');

const ROOT = join(__dirname, '..');

/** Each configuration, by name, and what it adds to the environment (`dir`: a throwaway folder). */
function configurations(dir) {
  const config = join(dir, 'sources.yaml');
  const document = join(ROOT, 'test', 'support', 'upstreams', 'inventory-3.1.yaml');
  writeFileSync(
    config,
    `sources:\n  inventory:\n    kind: openapi\n    document: ${JSON.stringify(document)}\n    base_url: http://127.0.0.1:9\n`,
  );
  return {
    'OAuth off': { OAUTH_ISSUERS: '', PUBLIC_URL: '' },
    'OAuth on': {
      OAUTH_ISSUERS: 'https://login.example.com/realms/tools',
      PUBLIC_URL: 'https://tools.example.com',
    },
    'with a source': { CONFIG_FILE: config, SOURCE_ALLOW_PRIVATE: 'true' },
  };
}

/** Redocly's findings on `document`, or undefined when it is clean. */
function lint(document, dir, name) {
  const file = join(dir, `${name.replace(/\W/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(document, null, 2));
  const redocly = require.resolve('@redocly/cli/bin/cli.js', { paths: [ROOT] });
  const result = spawnSync(process.execPath, [redocly, 'lint', file, '--format=stylish'], {
    encoding: 'utf8',
  });
  const output = `${result.stdout}${result.stderr}`;
  // Redocly exits 0 on warnings: "valid", then "You have 1 warning."
  const clean = result.status === 0 && /Your API description is valid/.test(output);
  return clean && !/You have \d+ warnings?/.test(output) ? undefined : output;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'tis-openapi-lint-'));
  let clean = true;
  try {
    for (const [name, env] of Object.entries(configurations(dir))) {
      const found = lint(await openApiDocument(ROOT, join(ROOT, 'dist'), env), dir, name);
      clean &&= found === undefined;
      process.stdout.write(
        found === undefined
          ? `OpenAPI document, ${name}: 0 errors, 0 warnings (Redocly recommended)\n`
          : `OpenAPI document, ${name}:\n${found}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(clean ? 0 : 1);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
