import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadSettings, type Settings, SettingsError } from './settings';

/**
 * The process's environment as main.ts and the CLI start with it: `.env` in the working directory
 * is read first when present (variables already set win: the environment is the operator's), then
 * every setting is checked once, before Nest starts, so a bad variable is one line naming it.
 */
export function prepareEnvironment(env: NodeJS.ProcessEnv = process.env): Settings {
  readEnvFile();
  return loadSettings(env);
}

/** `.env` in the working directory, when present, into the environment (what is set wins). */
export function readEnvFile(): void {
  const file = resolve('.env');
  if (!existsSync(file)) return;
  try {
    // Node's own reader (20.12+): it never overwrites a variable that is already set.
    process.loadEnvFile(file);
  } catch (error) {
    throw new SettingsError(`Cannot read ${file}: ${(error as Error).message}`);
  }
}
