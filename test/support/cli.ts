import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtEntry } from './built';
import { redisTestEnv } from './redis';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The time a test that runs the compiled CLI several times may take: each run is a process of its
 * own (Nest's modules, the store), about a second apiece on a busy machine, and several seconds on
 * one loaded by other work; more than the suite's 30 s may pass.
 */
export const CLI_TIMEOUT_MS = 120_000;

/**
 * `node`'s arguments for the compiled CLI, as `npm run cli` runs it (node dist/cli.js; in the
 * fixture-tool project its build with the fixture tool): see test/support/built.ts.
 */
export const CLI_ARGS = builtEntry('cli');

/**
 * Runs the operator CLI exactly as `npm run --silent cli -- ...` does (node dist/cli.js), with the
 * given environment (on the Redis run, REDIS_URL and the prefix of env.DATA_DIR's app are added
 * unless given), in a working directory of its own: no `.env` or `./data` of the checkout leaks in.
 */
export function runCli(
  args: string[],
  env: Record<string, string>,
  input?: string,
  cwd = mkdtempSync(join(tmpdir(), 'tis-cli-')),
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_ARGS, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...redisTestEnv(env.DATA_DIR), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
