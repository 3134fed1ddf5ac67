import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../src/testing';
import { builtEntry, tsNodeEntry } from './built';

const ROOT = join(__dirname, '..', '..');

export interface SpawnOptions {
  /** The process's environment, over `PATH` alone: the test process's own is not passed on. */
  env: Record<string, string>;
  /** A TypeScript server of the tests' own (test/support/*-server.ts); else the built server. */
  script?: string;
  /** Options of `node` itself, before the entry. */
  nodeArgs?: string[];
  /** Its working directory; the repository's root unless said. */
  cwd?: string;
}

/**
 * A server started as a process of its own: the built one as operators start it (`node
 * dist/main.js`, test/support/built.ts), or a test server script. What it writes is kept line by
 * line, stdout and stderr together.
 */
export class SpawnedApp {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  /** Its exit, once its output is read to the end. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private text = '';
  private waiters: (() => void)[] = [];

  constructor(options: SpawnOptions) {
    const entry = options.script ? tsNodeEntry(options.script) : builtEntry('main');
    this.child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...entry], {
      cwd: options.cwd ?? ROOT,
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      let pending = '';
      stream.on('data', (chunk: Buffer) => {
        this.text += chunk.toString();
        const complete = (pending + chunk.toString()).split('\n');
        pending = complete.pop() ?? '';
        this.lines.push(...complete);
        this.wake();
      });
    }
    this.exited = new Promise((resolve) =>
      this.child.on('close', (code, signal) => {
        this.wake();
        resolve({ code, signal });
      }),
    );
  }

  /** Everything it wrote so far, stdout and stderr. */
  output(): string {
    return this.text;
  }

  /** The first line it wrote that matches; fails if the process ends first. */
  async line(pattern: RegExp): Promise<RegExpMatchArray> {
    for (;;) {
      const found = this.lines.map((l) => pattern.exec(l)).find(Boolean);
      if (found) return found;
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`the process ended before writing ${pattern}: ${this.text}`);
      }
      await new Promise<void>((wake) => this.waiters.push(wake));
    }
  }

  /** The JSON log lines it wrote. */
  logRecords(): Record<string, unknown>[] {
    return this.lines
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** Stops it with `signal` (SIGTERM unless said), unless it has ended; resolves once it has. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    await this.exited;
  }

  private wake(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}

/** Starts a server as a process of its own (SpawnedApp); startApp starts one in this process. */
export function spawnApp(options: SpawnOptions): SpawnedApp {
  return new SpawnedApp(options);
}

/**
 * A server started as spawnApp starts it, listening on `127.0.0.1` and a port found free, once it
 * says so. The port reaches it as `HOST` and `PORT` over `options.env`, or as `portEnv` gives it
 * (a configuration file naming it, say). A port found free may be taken by another suite's process
 * before the server binds it: a start that finds it in use tries another, three times at most.
 */
export async function spawnListening(
  options: SpawnOptions,
  portEnv: (port: number) => Record<string, string> = (port) => ({
    HOST: '127.0.0.1',
    PORT: String(port),
  }),
): Promise<{ app: SpawnedApp; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const app = spawnApp({ ...options, env: { ...options.env, ...portEnv(port) } });
    try {
      await app.line(/Listening on/);
      return { app, port };
    } catch (error) {
      if (attempt < 3 && /is already in use/.test(app.output())) continue;
      throw error;
    }
  }
}
