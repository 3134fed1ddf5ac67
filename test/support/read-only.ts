import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';

/**
 * Makes a directory refuse new files, for real: root ignores permission bits, so as root the
 * directory is made immutable (`chattr +i`, ext4 and most Linux file systems); otherwise chmod 0555.
 * Returns the undo, or undefined when this machine offers neither.
 */
export function makeReadOnly(dir: string): (() => void) | undefined {
  if (process.getuid?.() !== 0) {
    chmodSync(dir, 0o555);
    return () => chmodSync(dir, 0o755);
  }
  try {
    execFileSync('chattr', ['+i', dir], { stdio: 'ignore' });
    return () => execFileSync('chattr', ['-i', dir], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
}
