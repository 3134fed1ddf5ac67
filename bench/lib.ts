/**
 * Helpers shared by the benchmarks (`bench/run.ts`, `bench/adversarial.ts`): autocannon, free
 * loopback ports, stopping a child process, a private redis-server, and a registry that kills the
 * children and removes the temporary directories a benchmark made, even when it fails or is
 * interrupted.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';

// autocannon ships no types; this is the part of its API used here.
export interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
  statusCodeStats?: Record<string, { count: number }>;
}
/** A run: awaitable for its result, and an emitter of each answer (`ms` measured with hrtime). */
export type CannonRun = PromiseLike<CannonResult> & {
  on(
    event: 'response',
    listener: (client: unknown, status: number, bytes: number, ms: number) => void,
  ): unknown;
};
export type Cannon = (opts: Record<string, unknown>) => CannonRun;
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const autocannon = require('autocannon') as Cannon;

export const ROOT = join(__dirname, '..');
export const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

/** SIGTERM, then SIGKILL after 5 s; resolves when the process has exited. */
export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

export function machine() {
  return {
    cpus: cpus().length,
    model: cpus()[0]?.model,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadavg1: Math.round(loadavg()[0] * 100) / 100,
  };
}

// ---- cleanup: children and temporary directories, also on SIGINT/SIGTERM and on exit ----

const children = new Set<ChildProcess>();
const dirs = new Set<string>();
let handlersInstalled = false;

function cleanupNow(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}

/** Kills every tracked child and removes every tracked directory on exit or on SIGINT/SIGTERM. */
export function installCleanup(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', cleanupNow);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping the children and removing temporary files\n`);
      cleanupNow();
      process.exit(130);
    });
  }
}

export function trackChild<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** A new temporary directory, removed at exit unless `removeDir` removed it before. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  dirs.delete(dir);
}

/** A private redis-server on a free loopback port (AOF on, no snapshots), or undefined without one. */
export async function startRedis(): Promise<
  { url: string; stop: () => Promise<void> } | undefined
> {
  if (spawnSync('which', ['redis-server']).status !== 0) return undefined;
  const port = await freePort();
  const dir = tempDir('tis-bench-redis-');
  const child = trackChild(
    spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'yes',
      ],
      { stdio: 'ignore' },
    ),
  );
  for (let i = 0; i < 100; i++) {
    if (
      spawnSync('redis-cli', ['-p', String(port), 'ping'])
        .stdout?.toString()
        .trim() === 'PONG'
    )
      break;
    await sleep(50);
  }
  return {
    url: `redis://127.0.0.1:${port}/0`,
    stop: async () => {
      await stop(child);
      removeDir(dir);
    },
  };
}
