import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain script, not a module of the build
const { ensureBuilt } = require('../../scripts/ensure-built.js') as {
  ensureBuilt: (root: string, options: { forTests: boolean }) => boolean;
};

/**
 * globalSetup of the whole run: the e2e tests spawn the compiled CLI and server, as operators run
 * them, so their build (dist-test/, SWC: test/support/built.ts) is made once here when it is
 * stale, by the check `npm start` and `npm run cli` make for dist/ (scripts/ensure-built.js).
 */
export default function buildOnce(): void {
  ensureBuilt(join(__dirname, '..', '..'), { forTests: true });
}
