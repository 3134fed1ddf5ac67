/**
 * `npm run test:matrix`: the e2e suite again on what `npm test` does not run, each project one more
 * way to serve the same contract. `.ci/run` runs it after `npm test`.
 */
const base = require('./jest.config.js');

const [, e2e, e2eRedis] = base.projects;
const fastify = '<rootDir>/test/support/fastify.setup-file.ts';

module.exports = {
  ...base,
  projects: [
    // The whole suite on Fastify (HTTP_ADAPTER=fastify), on SQLite, fuzz suite included.
    { ...e2e, displayName: 'e2e-fastify', setupFiles: [fastify] },
    // And on Redis.
    {
      ...e2eRedis,
      displayName: 'e2e-fastify-redis',
      setupFiles: [...e2eRedis.setupFiles, fastify],
    },
  ],
};
