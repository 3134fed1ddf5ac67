/**
 * `npm run test:console`: the operator console in Debian's Chromium (playwright-core, no browser
 * download), against the real service on SQLite. Apart from `npm test`: it needs Chromium and the
 * built console, and one browser at a time.
 */
const base = require('./jest.config.js');

const common = base.projects.find((project) => project.displayName === 'e2e');

module.exports = {
  projects: [
    {
      ...common,
      displayName: 'console',
      testRegex: 'test/console/.*\\.browser-spec\\.ts$',
      testPathIgnorePatterns: ['/node_modules/'],
    },
  ],
  globalSetup: '<rootDir>/test/console/build.global-setup.ts',
  maxWorkers: 1,
  testTimeout: 120000,
};
