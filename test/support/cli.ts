import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { redisTestEnv } from './redis';

const ROOT = join(__dirname, '..', '..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the operator CLI exactly as `npm run --silent cli -- ...` does, with the given environment
 * (on the Redis run, REDIS_URL and the prefix of env.DATA_DIR's app are added unless given).
 */
export function runCli(
  args: string[],
  env: Record<string, string>,
  input?: string,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', 'src/cli.ts', ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', ...redisTestEnv(env.DATA_DIR), ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
