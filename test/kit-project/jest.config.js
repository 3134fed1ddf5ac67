/** A team's Jest setup for suites on the kit: TypeScript through SWC, with decorator metadata. */
const swc = {
  module: { type: 'commonjs' },
  jsc: {
    target: 'es2022',
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
  },
};
module.exports = {
  testEnvironment: 'node',
  testRegex: 'test/.*\\.e2e-spec\\.ts$',
  transform: {
    '^.+\\.ts$': ['@swc/jest', swc],
    // jose 6 (the service's OAuth tokens) is ESM only: Node requires it natively, Jest's module
    // system does not, so SWC makes CommonJS of it, as the service's own jest.config.js does.
    '^.+/node_modules/jose/.+\\.js$': [
      '@swc/jest',
      { module: { type: 'commonjs' }, jsc: { target: 'es2022', parser: { syntax: 'ecmascript' } } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  testTimeout: 30000,
};
