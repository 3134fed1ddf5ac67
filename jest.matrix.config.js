/**
 * `npm run test:matrix`: the e2e suite again on other Redis topologies, each a jest project on a
 * shared base. Every topology is real redis-server processes on free loopback ports, started by the
 * project's globalSetup and stopped by its globalTeardown. `npm test` (jest.config.js) stays unit +
 * e2e on SQLite + e2e on one Redis.
 */
// The fuzz suite tests the HTTP surface, not the store; redis.e2e-spec.ts starts and stops a single
// redis-server of its own (the single-Redis outage specs).
const ignored = ['/node_modules/', 'fuzz\\.e2e-spec\\.ts$', '/redis\\.e2e-spec\\.ts$'];

const base = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  testEnvironment: 'node',
  rootDir: '.',
  testRegex: 'test/.*\\.e2e-spec\\.ts$',
  // The topology specs (failover, cluster slots) run only in their own topology's project.
  testPathIgnorePatterns: [...ignored, '/redis-(sentinel|cluster)\\.e2e-spec\\.ts$'],
};

/** The suite plus this topology's own spec. */
const onTopology = (topology) => [...ignored, `/redis-(?!${topology}\\.)[a-z]+\\.e2e-spec\\.ts$`];

module.exports = {
  projects: [
    {
      ...base,
      displayName: 'e2e-sentinel',
      testPathIgnorePatterns: onTopology('sentinel'),
      globalSetup: '<rootDir>/test/support/redis-sentinel.global-setup.ts',
      globalTeardown: '<rootDir>/test/support/redis-topology.global-teardown.ts',
      setupFiles: ['<rootDir>/test/support/redis-sentinel.setup-file.ts'],
    },
    {
      ...base,
      displayName: 'e2e-cluster',
      testPathIgnorePatterns: onTopology('cluster'),
      globalSetup: '<rootDir>/test/support/redis-cluster.global-setup.ts',
      globalTeardown: '<rootDir>/test/support/redis-topology.global-teardown.ts',
      setupFiles: ['<rootDir>/test/support/redis-cluster.setup-file.ts'],
    },
  ],
  // Once for the whole run: the CLI tests spawn the compiled CLI.
  globalSetup: '<rootDir>/test/support/build.global-setup.ts',
  maxWorkers: 2,
  testTimeout: 30000,
};
