/** Unit specs live beside the code; e2e specs in test/ run the real app over HTTP. */
const common = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  testEnvironment: 'node',
};
module.exports = {
  projects: [
    { ...common, displayName: 'unit', rootDir: 'src', testRegex: '.*\\.spec\\.ts$' },
    {
      ...common,
      displayName: 'e2e',
      rootDir: '.',
      testRegex: 'test/.*\\.e2e-spec\\.ts$',
    },
  ],
  maxWorkers: 2,
  testTimeout: 30000,
};
