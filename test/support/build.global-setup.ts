import { existsSync } from 'node:fs';
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain script, not a module of the build
const { ensureBuilt } = require('../../scripts/ensure-built.js') as {
  ensureBuilt: (root: string, options?: { forTests?: boolean }) => boolean;
};

const ROOT = join(__dirname, '..', '..');

/**
 * globalSetup of the whole run: the e2e tests spawn the compiled CLI and server, as operators run
 * them, so their build (dist-test/, SWC: test/support/built.ts) is made once here when it is
 * stale, by the check `npm start` and `npm run cli` make for dist/ (scripts/ensure-built.js). The
 * console's files the apps serve are dist/'s (`npm run build`): dist/ is built here only when they
 * are missing, so that a change of src/ costs a spec run the SWC build alone.
 */
export default function buildOnce(): void {
  if (!existsSync(join(ROOT, 'dist', 'console-ui', 'index.html'))) ensureBuilt(ROOT);
  ensureBuilt(ROOT, { forTests: true });
}

/** globalSetup of the console's browser tests: dist/ (with the console) as fresh as its sources. */
export function buildWithConsole(): void {
  ensureBuilt(ROOT);
  ensureBuilt(ROOT, { forTests: true });
}
