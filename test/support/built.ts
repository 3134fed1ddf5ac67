import { join } from 'node:path';

/**
 * What the suites spawn, as operators run `node dist/main.js` and `node dist/cli.js`: the tests'
 * build of the same sources (`dist-test/`, compiled by SWC), made by the run's global setup
 * (test/support/build.global-setup.ts) when it is stale.
 */
const BUILD_DIR = join(__dirname, '..', '..', 'dist-test');

/** The compiled server. */
export const BUILT_MAIN = join(BUILD_DIR, 'main.js');
/** The compiled operator CLI. */
export const BUILT_CLI = join(BUILD_DIR, 'cli.js');
