/**
 * What `tools init` (and the first `tools new` of a project without a Jest configuration) writes
 * into a team's project that depends on the package, so that the specs the generator writes run
 * there with `npx jest`: a Jest configuration for TypeScript through SWC, a tsconfig.json that
 * TypeScript 5 and 7 both accept, and the `test` and `typecheck` scripts. What the project has of
 * them already is kept as it is.
 */

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlannedFile } from './tool-generator';

/** The files Jest reads its configuration from, besides package.json's `jest` key. */
const JEST_CONFIG_FILES = ['js', 'ts', 'mjs', 'cjs', 'mts', 'cts', 'json'].map(
  (extension) => `jest.config.${extension}`,
);

/** The `test` script `npm init` writes: a placeholder that fails, replaced like a missing one. */
export const NPM_INIT_TEST_SCRIPT = 'echo "Error: no test specified" && exit 1';

/** The scripts the setup adds where the project has none of that name. */
const SCRIPTS = { test: 'jest', typecheck: 'tsc --noEmit' } as const;

/**
 * TypeScript through SWC with the decorator metadata Nest reads, compiled to CommonJS; jose (the
 * service's OAuth tokens) and json-schema-ref-parser (under the OpenAPI document's schema
 * converter) are published as ES modules only, which Jest's module system does not load, so SWC
 * makes CommonJS of them too.
 */
const JEST_CONFIG = `/** Specs on the kit (tool-invocation-service/testing): TypeScript through SWC, as CommonJS. */
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
  testRegex: '\\\\.(e2e-)?spec\\\\.ts$',
  transform: {
    '^.+\\\\.ts$': ['@swc/jest', swc],
    // ES modules only (jose: OAuth tokens; json-schema-ref-parser: OpenAPI schemas): SWC makes
    // CommonJS of them for Jest, wherever they sit under node_modules.
    '^.*/node_modules/(jose|@apidevtools/json-schema-ref-parser)/.+\\\\.js$': [
      '@swc/jest',
      { module: { type: 'commonjs' }, jsc: { target: 'es2022', parser: { syntax: 'ecmascript' } } },
    ],
  },
  transformIgnorePatterns: ['^(?!.*/node_modules/(jose|@apidevtools/json-schema-ref-parser)/).*/node_modules/'],
  // A suite starts the service (and a Redis when asked): more than Jest's default 5 s.
  testTimeout: 30000,
};
`;

/**
 * Type-checking only (`noEmit`: Jest compiles through SWC). `nodenext` checks a CommonJS project
 * as Node and Jest run it; in a `"type": "module"` project, whose specs Jest still runs as
 * CommonJS, `bundler` accepts their imports without extensions as Jest's resolver does. `node`
 * (node10) is refused by TypeScript 7; the types are listed because TypeScript 6 and later load
 * none by default.
 */
function tsconfigOf(esm: boolean): string {
  const [module, resolution] = esm ? ['preserve', 'bundler'] : ['nodenext', 'nodenext'];
  const options = {
    target: 'es2022',
    module,
    moduleResolution: resolution,
    lib: ['es2022'],
    types: ['node', 'jest'],
    strict: true,
    strictPropertyInitialization: false,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    esModuleInterop: true,
    isolatedModules: true,
    skipLibCheck: true,
    noEmit: true,
  };
  const lines = Object.entries(options).map(([name, value]) => `    "${name}": ${json(value)}`);
  return `{\n  "compilerOptions": {\n${lines.join(',\n')}\n  },\n  "include": ["src/**/*.ts", "test/**/*.ts"]\n}\n`;
}

const json = (value: unknown) => JSON.stringify(value).replace(/","/g, '", "');

/** A project's setup: what to write, what it has already (kept, for the output). */
export interface ProjectSetup {
  files: PlannedFile[];
  kept: string[];
  /** The project has a Jest configuration of its own: `tools new` then sets up nothing. */
  jestConfigured: boolean;
}

interface Manifest {
  type?: string;
  jest?: unknown;
  scripts?: Record<string, string>;
}

/** package.json at `root`, its text and what it says. */
function manifestOf(root: string): { text: string; manifest: Manifest } {
  const text = readFileSync(join(root, 'package.json'), 'utf8');
  return { text, manifest: JSON.parse(text) as Manifest };
}

/** package.json with the scripts added, laid out as it was (its indentation, its last newline). */
function withScripts(text: string, manifest: Manifest, scripts: Record<string, string>): string {
  const indent = /^([ \t]+)"/m.exec(text)?.[1] ?? '  ';
  const updated = { ...manifest, scripts: { ...manifest.scripts, ...scripts } };
  return `${JSON.stringify(updated, null, indent)}${text.endsWith('\n') ? '\n' : ''}`;
}

/** The scripts to add, and the ones of the project's own it keeps. */
function scriptsFor(manifest: Manifest): { added: Record<string, string>; kept: string[] } {
  const added: Record<string, string> = {};
  const kept: string[] = [];
  for (const [name, command] of Object.entries(SCRIPTS)) {
    const present = manifest.scripts?.[name];
    const placeholder = name === 'test' && present === NPM_INIT_TEST_SCRIPT;
    if (present === undefined || placeholder) added[name] = command;
    else kept.push(`package.json's ${name} script "${present}"`);
  }
  return { added, kept };
}

/**
 * What the project at `root` (a team's, with a package.json depending on the package) lacks of
 * what its specs need, and what it has of it already.
 */
export function planProjectSetup(root: string): ProjectSetup {
  const { text, manifest } = manifestOf(root);
  const esm = manifest.type === 'module';
  const files: PlannedFile[] = [];
  const kept: string[] = [];
  const jestConfig = JEST_CONFIG_FILES.find((name) => existsSync(join(root, name)));
  if (jestConfig) kept.push(jestConfig);
  else if (manifest.jest !== undefined) kept.push("package.json's jest key");
  else
    files.push({
      path: esm ? 'jest.config.cjs' : 'jest.config.js',
      text: JEST_CONFIG,
      created: true,
    });
  if (existsSync(join(root, 'tsconfig.json'))) kept.push('tsconfig.json');
  else files.push({ path: 'tsconfig.json', text: tsconfigOf(esm), created: true });
  const scripts = scriptsFor(manifest);
  kept.push(...scripts.kept);
  const added = Object.keys(scripts.added);
  if (added.length) {
    const updated = withScripts(text, manifest, scripts.added);
    files.push({
      path: 'package.json',
      text: updated,
      created: false,
      change: `scripts: ${added.join(', ')}`,
    });
  }
  return { files, kept, jestConfigured: Boolean(jestConfig) || manifest.jest !== undefined };
}
