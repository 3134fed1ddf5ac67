import { chmodSync, closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';

/**
 * What the service keeps in DATA_DIR (the database, key hashes, the initial key, overrides that may
 * hold secrets) is for its own user only: directories 0700 and files 0600, set explicitly so that
 * neither the umask nor the mode of a directory that already exists widens them.
 */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dir, 0o700);
  } catch (error) {
    // A mount point owned by another user: its owner decides its mode; the files inside are 0600.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}

/** Creates the file empty when missing; either way it ends up 0600. */
export function privateFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
}

/** Files that may exist from an earlier run (a database's WAL and shared memory): made 0600. */
export function privateIfPresent(...files: string[]): void {
  for (const file of files) if (existsSync(file)) chmodSync(file, 0o600);
}

export function writePrivateFile(file: string, content: string): void {
  writeFileSync(file, content, { mode: 0o600 });
  chmodSync(file, 0o600);
}
