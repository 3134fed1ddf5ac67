import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** The SDK 1.x upstream of the sources' tests (test/support/upstreams/sdk1-server.mjs). */
export const SDK1_SERVER = join(__dirname, 'upstreams', 'sdk1-server.mjs');
/** `@modelcontextprotocol/server-everything`'s launcher: `stdio` or `streamableHttp`. */
export const EVERYTHING_SERVER = require.resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
  {
    paths: [join(__dirname, '..', '..')],
  },
);

/** An upstream MCP server over HTTP that a test started: its URL, and how to stop it. */
export interface HttpUpstream {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the SDK 1.x upstream over HTTP on a free loopback port (or `port`). */
export function startSdk1Http(port = 0): Promise<HttpUpstream> {
  const child = spawn(process.execPath, [SDK1_SERVER, 'http'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    child.once('exit', (code) => reject(new Error(`sdk1-server exited (${code})`)));
    lines.on('line', (line) => {
      const found = /^listening (\d+)$/.exec(line);
      if (!found) return;
      const at = Number(found[1]);
      resolve({
        url: `http://127.0.0.1:${at}/mcp`,
        port: at,
        process: child,
        stop: () => stopProcess(child),
      });
    });
  });
}

/** `@modelcontextprotocol/server-everything` over Streamable HTTP on `port` (its CLI's `streamableHttp`). */
export async function startEverythingHttp(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING_SERVER, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code})`)));
    child.stderr.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve();
    });
  });
  return child;
}

/** Stops a child and waits for its exit. */
export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Waits until `check` holds, looking every 50 ms, at most `ms`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  ms = 15_000,
): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('The condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
