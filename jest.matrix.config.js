/**
 * `npm run test:matrix`: the e2e suite again on what `npm test` (jest.config.js: unit, e2e on
 * SQLite, e2e on one Redis) does not run, each project one more way to serve the same contract:
 * on Fastify (SQLite and one Redis), through Sentinel and on a Redis Cluster. Every topology is real
 * redis-server processes on free loopback ports, started by the project's globalSetup and stopped by
 * its globalTeardown. `.ci/run` runs it after `npm test`.
 */
const base = require('./jest.config.js');
const { MATRIX_ONCE, MATRIX_ONLY } = require('./test/support/matrix-only');

/** The projects of `npm test` with the suites it leaves to this run (MATRIX_ONLY) back in. */
const [, e2e, e2eRedis] = base.projects.map((project) => ({
  ...project,
  testPathIgnorePatterns: project.testPathIgnorePatterns?.filter(
    (pattern) => pattern !== MATRIX_ONLY,
  ),
}));
const fastify = '<rootDir>/test/support/fastify.setup-file.ts';

// The fuzz suite tests the HTTP surface, not the store; redis.e2e-spec.ts starts and stops a single
// redis-server of its own (the single-Redis outage specs); MATRIX_ONCE runs in e2e-spawned only.
const ignored = ['/node_modules/', 'fuzz\\.e2e-spec\\.ts$', '/redis\\.e2e-spec\\.ts$', MATRIX_ONCE];

/** The suite plus this topology's own spec (failover, cluster slots), and no other topology's. */
const onTopology = (topology) => [...ignored, `/redis-(?!${topology}\\.)[a-z]+\\.e2e-spec\\.ts$`];

module.exports = {
  ...base,
  projects: [
    // The suites npm test leaves out (runtime-lease, runtime-refunds) on SQLite, on Express.
    { ...e2e, displayName: 'e2e-spawned', testRegex: MATRIX_ONLY },
    // The whole suite on Fastify (HTTP_ADAPTER=fastify), on SQLite, fuzz suite included.
    {
      ...e2e,
      displayName: 'e2e-fastify',
      testPathIgnorePatterns: [...e2e.testPathIgnorePatterns, MATRIX_ONCE],
      setupFiles: [fastify],
    },
    // And on one Redis, with the suites that spawn the compiled CLI and server (`npm test` runs
    // them on SQLite only).
    {
      ...e2eRedis,
      displayName: 'e2e-fastify-redis',
      testPathIgnorePatterns: [...e2e.testPathIgnorePatterns, 'fuzz\\.e2e-spec\\.ts$', MATRIX_ONCE],
      setupFiles: [...e2eRedis.setupFiles, fastify],
    },
    {
      ...e2e,
      displayName: 'e2e-sentinel',
      testPathIgnorePatterns: onTopology('sentinel'),
      globalSetup: '<rootDir>/test/support/redis-sentinel.global-setup.ts',
      globalTeardown: '<rootDir>/test/support/redis-topology.global-teardown.ts',
      setupFiles: ['<rootDir>/test/support/redis-sentinel.setup-file.ts'],
    },
    {
      ...e2e,
      displayName: 'e2e-cluster',
      testPathIgnorePatterns: onTopology('cluster'),
      globalSetup: '<rootDir>/test/support/redis-cluster.global-setup.ts',
      globalTeardown: '<rootDir>/test/support/redis-topology.global-teardown.ts',
      setupFiles: ['<rootDir>/test/support/redis-cluster.setup-file.ts'],
    },
  ],
};
