// The OpenAPI document the service serves at /openapi.json, built from the compiled app in dist/
// without a server: on a throwaway DATA_DIR, never listening. `npm run lint:openapi` lints it; the
// console's build (scripts/build-console.js) and `npm run client` (scripts/client.js) generate
// their TypeScript types from it, by openApiTypes below.
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

/**
 * The document of the app built under `root`/dist (or in the folder `dist`), with `env` added to
 * the environment while it is built (OAUTH_ISSUERS and PUBLIC_URL: the document with OAuth on).
 */
async function openApiDocument(root = join(__dirname, '..'), dist = join(root, 'dist'), env = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'tis-openapi-'));
  const saved = Object.fromEntries(
    ['DATA_DIR', ...Object.keys(env)].map((name) => [name, process.env[name]]),
  );
  Object.assign(process.env, env, { DATA_DIR: dir });
  try {
    require('reflect-metadata');
    const { NestFactory } = require(require.resolve('@nestjs/core', { paths: [root] }));
    const { rootModule } = require(join(dist, 'app.module'));
    const { buildOpenApiDocument } = require(join(dist, 'kernel', 'openapi', 'openapi'));
    const app = await NestFactory.create(rootModule('server'), { logger: false });
    await app.init();
    try {
      return buildOpenApiDocument(app);
    } finally {
      await app.close();
    }
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The TypeScript types of `document` (paths, components, operations), by openapi-typescript on its
 * default options, sorted (alphabetize) so that a change of the API is a small diff; `header` first.
 * No flag is needed for a request field with a default (greet's `shout`, `times`) to be optional:
 * each request body is a `#/components/requestBodies` entry, where openapi-typescript leaves such a
 * field optional; elsewhere (the answers' schemas, where the field is always there) its
 * defaultNonNullable, on by default, types it as required.
 */
async function openApiTypes(document, header = '') {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  return header + astToString(await openapiTS(document, { alphabetize: true }));
}

module.exports = { openApiDocument, openApiTypes };
