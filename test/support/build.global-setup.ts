import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The newest modification time of the files below a folder. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/**
 * globalSetup of the whole run: the e2e tests spawn the compiled CLI (node dist/cli.js), as
 * operators run it, so dist/ is built once here when it is missing or older than src/.
 */
export default function buildOnce(): void {
  const cli = join(ROOT, 'dist', 'cli.js');
  if (existsSync(cli) && statSync(cli).mtimeMs >= newest(join(ROOT, 'src'))) return;
  execFileSync(process.execPath, [require.resolve('@nestjs/cli/bin/nest.js'), 'build'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}
