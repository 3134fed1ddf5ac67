import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * What the suites spawn, as operators run `node dist/main.js` and `node dist/cli.js`: the tests'
 * build of the same sources (`dist-test/`, compiled by SWC), made by the run's global setup
 * (test/support/build.global-setup.ts) when it is stale.
 */
const TEST_BUILD_DIR = join(ROOT, 'dist-test');

/** Where the fixture-tool project's build goes (test/fixture-tool/tsconfig.build.json's outDir). */
export const FIXTURE_BUILD_DIR = join(ROOT, 'dist-fixture');

let withFixtureTool = false;

/** Whether the processes the suites start register the fixture tools (the fixture-tool project). */
export const fixtureToolsRegistered = (): boolean => withFixtureTool;

/**
 * Called by the fixture-tool project's setup file (test/fixture-tool/setup-file.ts): from then on
 * the processes the suites start register the fixture tool too.
 */
export function startProcessesWithFixtureTool(): void {
  withFixtureTool = true;
}

/**
 * `node`'s arguments that run a compiled entry point as operators do (`node dist/main.js`,
 * `node dist/cli.js`): the tests' build in dist-test/. In the fixture-tool project, the build of
 * dist-fixture/ instead: the same sources, whose tool list loads the fixture tool
 * (test/fixture-tool/build.global-setup.ts).
 */
export function builtEntry(entry: 'main' | 'cli'): string[] {
  return [join(builtApp(), `${entry}.js`)];
}

/** The compiled app the suites run: dist-test/, or in the fixture-tool project dist-fixture/src/. */
export function builtApp(): string {
  return withFixtureTool ? join(FIXTURE_BUILD_DIR, 'src') : TEST_BUILD_DIR;
}

/** `node`'s arguments that run a TypeScript server of the tests' own (test/support/*-server.ts). */
export function tsNodeEntry(script: string): string[] {
  return [
    '-r',
    'ts-node/register/transpile-only',
    ...(withFixtureTool ? ['-r', join(ROOT, 'test', 'fixture-tool', 'register.ts')] : []),
    script,
  ];
}
