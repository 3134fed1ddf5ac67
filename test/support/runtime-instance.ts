import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { tsNodeEntry } from './built';

/** An instance of the service with the runtime's test tools, as a process of its own. */
export interface RuntimeInstance {
  child: ChildProcess;
  url: string;
  adminKey: string;
}

/** Starts test/support/runtime-server.ts with `env` (DATA_DIR included); ready once it listens. */
export async function startInstance(env: Record<string, string>): Promise<RuntimeInstance> {
  const child = spawn(process.execPath, tsNodeEntry(join(__dirname, 'runtime-server.ts')), {
    cwd: join(__dirname, '..', '..'),
    env: { ...process.env, RUNTIME_APP_ENV: JSON.stringify(env) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 60 s: ${stderr}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    createInterface({ input: child.stdout }).on('line', (text) => {
      if (!text.startsWith('{"port"')) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve(text);
    });
  });
  const { port, adminKey } = JSON.parse(line) as { port: number; adminKey: string };
  return { child, url: `http://127.0.0.1:${port}`, adminKey };
}

/** SIGKILL: the instance stops at once, its calls left as they stand. */
export function killHard(instance: RuntimeInstance): Promise<void> {
  return new Promise((resolve) => {
    if (instance.child.exitCode !== null || instance.child.signalCode !== null) return resolve();
    instance.child.once('exit', () => resolve());
    instance.child.kill('SIGKILL');
  });
}

/** Reads until `done` holds of the value, every 200 ms, for at most `ms`; the last value read. */
export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  ms: number,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
