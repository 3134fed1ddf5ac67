// The OpenAPI document the service serves at /openapi.json, built from the compiled app in dist/
// without a server: on a throwaway DATA_DIR, never listening. `npm run lint:openapi` lints it; the
// console's build generates its typed client from it (scripts/build-console.js).
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

/** The document of the app built under `root`/dist. */
async function openApiDocument(root = join(__dirname, '..')) {
  const dir = mkdtempSync(join(tmpdir(), 'tis-openapi-'));
  const saved = process.env.DATA_DIR;
  process.env.DATA_DIR = dir;
  try {
    require('reflect-metadata');
    const { NestFactory } = require(require.resolve('@nestjs/core', { paths: [root] }));
    const dist = join(root, 'dist');
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
    if (saved === undefined) delete process.env.DATA_DIR;
    else process.env.DATA_DIR = saved;
    rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { openApiDocument };
