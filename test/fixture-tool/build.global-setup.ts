import { execFileSync } from 'node:child_process';
import { appendFileSync, copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import buildOnce from '../support/build.global-setup';
import { FIXTURE_BUILD_DIR } from '../support/built';

const ROOT = join(__dirname, '..', '..');

/** What the compiled tool list gets, so that it loads the fixture as a line of src/tools.ts would. */
const REGISTER = "require('../test/fixture-tool/register');";

/**
 * globalSetup of the fixture-tool project: dist/ as for every run, then the service with the fixture
 * tool, compiled by tsc as `npm run build` compiles dist/ (tsconfig.build.json's options), into
 * dist-fixture/: src/ and the fixture's files side by side. tsc's incremental build leaves the
 * unchanged files alone. The compiled list, dist-fixture/src/tools.js, then loads the fixture's
 * register.js at its end: the fixture joins the list when the list loads, as with a team's line
 * in src/tools.ts, so the entry points start as they do in dist/ (main.js's heap settings first;
 * a `node -r` of the fixture would load the modules before them). The package.json beside them is
 * the one the service reads its name and version from (`../package.json` of the entry points, as
 * in dist/).
 */
export default function buildWithFixtureTool(): void {
  buildOnce();
  process.stderr.write('\nBuilding dist-fixture/ (the service with the fixture tool)\n');
  execFileSync(
    process.execPath,
    [
      require.resolve('typescript/bin/tsc', { paths: [ROOT] }),
      '-p',
      join(__dirname, 'tsconfig.build.json'),
    ],
    { cwd: ROOT, stdio: ['ignore', 2, 2] },
  );
  // tsc writes tools.js anew only when src/tools.ts changed: the line is added once.
  const tools = join(FIXTURE_BUILD_DIR, 'src', 'tools.js');
  if (!readFileSync(tools, 'utf8').includes(REGISTER)) appendFileSync(tools, `\n${REGISTER}\n`);
  copyFileSync(join(ROOT, 'package.json'), join(FIXTURE_BUILD_DIR, 'package.json'));
}
