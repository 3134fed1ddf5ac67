#!/usr/bin/env node
// Lints the OpenAPI document the service serves with Redocly's recommended rules: zero errors and
// zero warnings, or exit 1. The document is built from the compiled app (npm run build first), on a
// throwaway DATA_DIR, without listening; `npm run lint:openapi` runs this, and so does CI.
const { spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { openApiDocument } = require('./openapi-document');

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'tis-openapi-lint-'));
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(await openApiDocument(), null, 2));
  const redocly = require.resolve('@redocly/cli/bin/cli.js', { paths: [join(__dirname, '..')] });
  const result = spawnSync(process.execPath, [redocly, 'lint', file, '--format=stylish'], {
    encoding: 'utf8',
  });
  const output = `${result.stdout}${result.stderr}`;
  rmSync(dir, { recursive: true, force: true });
  const clean = result.status === 0 && /Your API description is valid/.test(output);
  process.stdout.write(clean ? 'OpenAPI document: 0 errors, 0 warnings (Redocly recommended)\n' : output);
  process.exit(clean ? 0 : 1);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
