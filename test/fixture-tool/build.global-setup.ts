import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import buildOnce from '../support/build.global-setup';
import { FIXTURE_BUILD_DIR } from '../support/built';

const ROOT = join(__dirname, '..', '..');

/**
 * globalSetup of the fixture-tool project: dist/ as for every run, then the service with the fixture
 * tool, compiled by tsc as `npm run build` compiles dist/ (tsconfig.build.json's options), into
 * dist-fixture/: src/ and the fixture's files side by side. tsc's incremental build leaves the
 * unchanged files alone. The package.json beside them is the one the service reads its name and
 * version from (`../package.json` of the entry points, as in dist/).
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
  copyFileSync(join(ROOT, 'package.json'), join(FIXTURE_BUILD_DIR, 'package.json'));
}
