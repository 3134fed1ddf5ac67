import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServerOptions {
  /** Started with `requirepass` (and `masterauth`, for a replica): the URL carries the password. */
  password?: string;
  /** AOF on (the default here) or off, as a stock Redis runs. */
  appendonly?: boolean;
  /** More arguments (`--replicaof`, `--cluster-enabled`...). */
  args?: string[];
  /** A Sentinel: this configuration is written to its directory and run with `--sentinel`. */
  sentinelConfig?: string;
}

export function freePort(): Promise<number> {
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
 * A watchdog for a server: a shell reading a pipe from this process kills the server when the pipe
 * closes, that is when this process ends without having stopped it (a jest worker killed or crashed
 * mid-file), so that no redis-server outlives its test run. (An 'exit' handler would not do: jest
 * gives test files a process object of their own that never emits it.)
 */
function watchdog(server: ChildProcess): void {
  const dog = spawn('sh', ['-c', `cat > /dev/null; kill -9 ${server.pid} 2>/dev/null`], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  dog.unref();
  (dog.stdin as Socket).unref();
  // Stopped with its server: it must never kill a later process that got the same pid.
  server.once('exit', () => dog.kill('SIGKILL'));
}

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
    const sentinel = this.options.sentinelConfig;
    const args = sentinel
      ? [this.writeSentinelConfig(sentinel), '--sentinel']
      : [
          ...['--appendonly', this.options.appendonly === false ? 'no' : 'yes'],
          ...['--save', ''],
          ...(this.options.password
            ? ['--requirepass', this.options.password, '--masterauth', this.options.password]
            : []),
        ];
    args.push(
      ...['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir],
      ...['--daemonize', 'no'],
      ...(this.options.args ?? []),
    );
    // A Sentinel prints no "Ready" line: it is ready once it monitors its master.
    const readyLine = sentinel ? '+monitor master' : 'Ready to accept connections';
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    watchdog(child);
    return new Promise<void>((ready, fail) => {
      let output = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        fail(new Error(`redis-server did not start in time:\n${output}`));
      }, STARTUP_TIMEOUT_MS);
      const onData = (chunk: Buffer) => {
        if (this.child === child) return; // started: its log is of no more interest
        output += chunk.toString();
        if (output.includes(readyLine)) {
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

  /** A Sentinel rewrites its configuration file: it gets a copy of its own. */
  private writeSentinelConfig(text: string): string {
    const file = join(this.dir, 'sentinel.conf');
    writeFileSync(file, text);
    return file;
  }

  /** SIGTERM and wait: Redis flushes its AOF and exits. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.kill(signal);
    await exited;
    clearTimeout(force);
    this.child = undefined;
  }

  /** SIGKILL: the server dies at once, as a crashed or unplugged machine would, writing nothing more. */
  kill(): Promise<void> {
    return this.stop('SIGKILL');
  }

  /** Starts again on the same port and directory: the data comes back from the AOF. */
  async start(): Promise<void> {
    if (!this.child) await this.launch();
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** SIGSTOP: the server keeps its connections but answers nothing, as a hung machine would. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  /** SIGCONT: a paused server answers again, the commands it was sent first. */
  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** Stops the server and removes its directory. */
  async destroy(): Promise<void> {
    this.resume();
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
