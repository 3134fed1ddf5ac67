/** Unit specs live beside the code; e2e specs in test/ run the real app over HTTP. */
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

/**
 * Specs are compiled by SWC, file by file, with the options the tests' build of the server uses
 * (.swcrc: decorator metadata, as Nest needs; class fields as tsc emits them for ES2022). The type
 * check is `npm run lint`'s.
 */
const swc = { ...JSON.parse(readFileSync(join(__dirname, '.swcrc'), 'utf8')), swcrc: false };
/** Paths of the ES-module-only packages the service requires (at any depth of node_modules). */
const ESM_PACKAGES = '.*/node_modules/(jose|@apidevtools/json-schema-ref-parser)/';
const ESM_ONLY = `^${ESM_PACKAGES}.+\\.js$`;
const common = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', swc],
    // jose 6 and json-schema-ref-parser 15 (under the OpenAPI schema converter) are ESM only: Node
    // requires them natively, Jest's module system does not, so SWC makes CommonJS of them for the
    // tests (cached after the first run).
    [ESM_ONLY]: [
      '@swc/jest',
      {
        swcrc: false,
        module: { type: 'commonjs' },
        jsc: { target: 'es2022', parser: { syntax: 'ecmascript' } },
      },
    ],
  },
  transformIgnorePatterns: [`^(?!${ESM_PACKAGES}).*/node_modules/`],
  testEnvironment: 'node',
  // The fixture-tool project's build (jest.fixture-tool.config.js): compiled copies of src/ and a
  // package.json of the same name, which no test imports.
  // The scratch project's template (test/kit-project/): its suite runs in the scratch project
  // (`npm run test:kit-project`), against the package's tarball.
  // The Node binaries scripts/install-node.sh installs (.node/<line>/, each with its package.json).
  modulePathIgnorePatterns: [
    '<rootDir>/dist-fixture/',
    '<rootDir>/test/kit-project/',
    '<rootDir>/.node/',
  ],
};
// The Sentinel and Cluster specs start topologies of their own: `npm run test:matrix` runs them.
const topologySpecs = '/redis-(sentinel|cluster)\\.e2e-spec\\.ts$';
/** Left out of `npm test`'s Redis run: see e2e-redis below. */
const notInRedisRun = [
  'fuzz\\.e2e-spec\\.ts$',
  '/(keys-cli|config-startup|key-names|cli-first-start|tracing)\\.e2e-spec\\.ts$',
  // The test kit starts the store it is asked for itself.
  '/testing/kit\\.e2e-spec\\.ts$',
  // What no store decides: the build check, the documents, the HTTP server's own limits.
  '/(ensure-built|newcomer|docs-links|docs-code|architecture|typed-client|front-door|openapi|openapi-coverage|max-connections|cors|request-context)\\.e2e-spec\\.ts$',
  // The OpenAPI upstream kind on its own (no store behind it).
  '/sources/openapi-(upstream|documents)\\.e2e-spec\\.ts$',
];
// Run by `npm run test:matrix` only (test/support/matrix-only.js says which and why).
const { MATRIX_ONLY } = require('./test/support/matrix-only');
const e2e = {
  ...common,
  rootDir: '.',
  testRegex: 'test/.*\\.e2e-spec\\.ts$',
  testPathIgnorePatterns: ['/node_modules/', topologySpecs],
};
module.exports = {
  projects: [
    { ...common, displayName: 'unit', rootDir: 'src', testRegex: '.*\\.spec\\.ts$' },
    {
      ...e2e,
      displayName: 'e2e',
      testPathIgnorePatterns: [...e2e.testPathIgnorePatterns, MATRIX_ONLY],
    },
    // The same e2e specs again, every app on one shared redis-server (REDIS_URL) instead of SQLite.
    {
      ...e2e,
      displayName: 'e2e-redis',
      // The fuzz suite runs once, against SQLite: it tests the HTTP surface, not the store; so do
      // the suites of what no store decides (notInRedisRun). The spawning suites (the compiled CLI
      // and server: keys-cli, config-startup, key-names, cli-first-start, tracing) run on Redis in
      // `npm run test:matrix` (e2e-fastify-redis, Sentinel, Cluster), as all of these do; this
      // keeps `npm test` under three minutes.
      testPathIgnorePatterns: [...e2e.testPathIgnorePatterns, MATRIX_ONLY, ...notInRedisRun],
      globalSetup: '<rootDir>/test/support/redis.global-setup.ts',
      globalTeardown: '<rootDir>/test/support/redis.global-teardown.ts',
      setupFiles: ['<rootDir>/test/support/redis.setup-file.ts'],
    },
  ],
  // Once for the whole run: the CLI tests spawn the compiled CLI.
  globalSetup: '<rootDir>/test/support/build.global-setup.ts',
  maxWorkers: 2,
  testTimeout: 30000,
};
