import { ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The suite runs against a shared redis-server (jest project `e2e-redis`) when this is set. */
export function usingSharedRedis(): boolean {
  return Boolean(process.env.TEST_REDIS_URL);
}

/**
 * REDIS_URL and a key prefix for an app on `dataDir`, when the suite runs against Redis. The prefix
 * follows the data directory: a fresh directory is a fresh, empty store (as with SQLite), an app
 * restarted on the same directory finds its data again, and the CLI given that DATA_DIR works on
 * the same store. Two instances of one deployment share a directory, or pass REDIS_KEY_PREFIX.
 */
export function redisTestEnv(dataDir?: string): Record<string, string> {
  const url = process.env.TEST_REDIS_URL;
  if (!url) return {};
  if (!dataDir) return { REDIS_URL: url };
  return { REDIS_URL: url, REDIS_KEY_PREFIX: prefixFor(dataDir) };
}

export function prefixFor(dataDir: string): string {
  return `tis-test:${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16)}:`;
}

export interface RedisServerOptions {
  /** Started with `requirepass`: the URL carries the password. */
  password?: string;
  /** AOF on (the default here) or off, as a stock Redis runs. */
  appendonly?: boolean;
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolvePort(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

const STARTUP_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 10_000;

/**
 * A real redis-server for tests: loopback only, a free port, its own temporary directory, AOF on and
 * RDB snapshots off (so what survives a restart survived through the AOF). Stopped with SIGTERM,
 * on which Redis writes its AOF out before exiting.
 */
export class RedisServer {
  private child?: ChildProcess;

  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly options: RedisServerOptions,
  ) {}

  static async start(options: RedisServerOptions = {}): Promise<RedisServer> {
    const dir = mkdtempSync(join(tmpdir(), 'tis-redis-'));
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      const server = new RedisServer(await freePort(), dir, options);
      try {
        await server.launch();
        return server;
      } catch (error) {
        lastError = error; // most likely the port was taken in between: try another
      }
    }
    rmSync(dir, { recursive: true, force: true });
    throw lastError;
  }

  get url(): string {
    const auth = this.options.password ? `:${encodeURIComponent(this.options.password)}@` : '';
    return `redis://${auth}127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  private launch(): Promise<void> {
    const args = [
      ...['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir],
      ...['--appendonly', this.options.appendonly === false ? 'no' : 'yes'],
      ...['--save', '', '--daemonize', 'no'],
      ...(this.options.password ? ['--requirepass', this.options.password] : []),
    ];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    return new Promise<void>((ready, fail) => {
      let output = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        fail(new Error(`redis-server did not start in time:\n${output}`));
      }, STARTUP_TIMEOUT_MS);
      const onData = (chunk: Buffer) => {
        if (this.child === child) return; // started: its log is of no more interest
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          this.child = child;
          ready();
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('error', (error) => {
        clearTimeout(timer);
        fail(error);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        if (this.child === child) this.child = undefined;
        fail(new Error(`redis-server exited with ${code}:\n${output}`));
      });
    });
  }

  /** SIGTERM and wait: Redis flushes its AOF and exits. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(force);
    this.child = undefined;
  }

  /** Starts again on the same port and directory: the data comes back from the AOF. */
  async start(): Promise<void> {
    if (!this.child) await this.launch();
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Stops the server and removes its directory. */
  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
