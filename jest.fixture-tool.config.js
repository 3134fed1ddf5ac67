/**
 * `npm run test:fixture-tool`: the e2e suite with one more tool registered, as a team's first tool
 * would be (test/fixture-tool/: a tool with a configuration section, a cost of 3, its own defaults,
 * long-running calls and progress). It shows that no suite hard-codes the tool list or the
 * configuration tree where it means "the registered tools". test/fixture-tool/register.ts adds the
 * tool to TOOL_MODULES: before each suite (setupFiles) and in the processes the suites start (the
 * compiled server and CLI run from dist-fixture/, which the globalSetup builds). `.ci/run` runs it.
 */
const base = require('./jest.config.js');

const [, e2e] = base.projects;

module.exports = {
  ...base,
  globalSetup: '<rootDir>/test/fixture-tool/build.global-setup.ts',
  projects: [
    {
      ...e2e,
      displayName: 'e2e-fixture-tool',
      setupFiles: ['<rootDir>/test/fixture-tool/setup-file.ts'],
    },
  ],
};
