import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain script, not a module of the build
const { ensureBuilt } = require('../../scripts/ensure-built.js') as {
  ensureBuilt: (root?: string) => boolean;
};

/**
 * globalSetup of the whole run: the e2e tests spawn the compiled CLI (node dist/cli.js), as
 * operators run it, so dist/ is built once here when it is stale, by the check `npm start` and
 * `npm run cli` make (scripts/ensure-built.js).
 */
export default function buildOnce(): void {
  ensureBuilt(join(__dirname, '..', '..'));
}
