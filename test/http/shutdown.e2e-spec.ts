import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { INITIAL_KEY_FILE } from '../../src/subjects/initial-key';
import { baseEnv, bearer, tempDataDir } from '../support/app';
import { tsNodeEntry } from '../support/built';
import { usingSharedRedis } from '../support/redis';

const ROOT = join(__dirname, '../..');

/** The slow server's process, with its stdout read line by line. */
class ServerProcess {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private stderr = '';
  private waiters: (() => void)[] = [];

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, tsNodeEntry('test/support/slow-server.ts'), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let pending = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const complete = pending.split('\n');
      pending = complete.pop() ?? '';
      this.lines.push(...complete);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code, signal) => {
        for (const wake of this.waiters.splice(0)) wake();
        resolve({ code, signal });
      }),
    );
  }

  /** The first stdout line matching the pattern; fails if the process exits first. */
  async line(pattern: RegExp): Promise<RegExpMatchArray> {
    for (;;) {
      const found = this.lines.map((l) => pattern.exec(l)).find(Boolean);
      if (found) return found;
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`server exited before printing ${pattern}: ${this.stderr}`);
      }
      await new Promise<void>((wake) => this.waiters.push(wake));
    }
  }

  logRecords(): Record<string, unknown>[] {
    return this.lines
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

describe('graceful shutdown (a real server process)', () => {
  let server: ServerProcess | undefined;

  afterEach(() => {
    if (server && server.child.exitCode === null && server.child.signalCode === null)
      server.child.kill('SIGKILL');
  });

  it('on SIGTERM finishes the in-flight request, closes the store and exits 0', async () => {
    const dataDir = tempDataDir();
    // The data directory's own Redis prefix: a fresh store, so the initial key is written.
    const env: Record<string, string> = { ...baseEnv(dataDir), DATA_DIR: dataDir };
    server = new ServerProcess(env);
    const port = Number((await server.line(/^listening (\d+)$/))[1]);
    const base = `http://127.0.0.1:${port}`;
    const key = readFileSync(join(dataDir, INITIAL_KEY_FILE), 'utf8').trim();

    const inFlight = request(base).post('/api/v1/services/slow').set(bearer(key)).send({});
    const answered = inFlight.then((res) => res);
    await server.line(/^in-flight$/);
    server.child.kill('SIGTERM');

    const res = await answered;
    expect(res.status).toBe(200);
    // The tool answered after the server had stopped accepting connections.
    expect(res.body).toEqual({ finished: true });

    await expect(request(base).get('/health')).rejects.toThrow(
      /ECONNREFUSED|ECONNRESET|socket hang up/,
    );
    expect(await server.exited).toEqual({ code: 0, signal: null });

    const messages = server.logRecords().map((r) => r.msg);
    expect(messages).toContain('SIGTERM: finishing in-flight requests, then closing the store');
    if (!usingSharedRedis()) {
      // SQLite folds its write-ahead log into the database and removes it when the last connection closes.
      expect(existsSync(join(dataDir, 'service.db'))).toBe(true);
      expect(existsSync(join(dataDir, 'service.db-wal'))).toBe(false);
    }
  });
});
