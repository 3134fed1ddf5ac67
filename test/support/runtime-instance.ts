import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { spawnApp } from './spawned-app';

/** An instance of the service with the runtime's test tools, as a process of its own. */
export interface RuntimeInstance {
  child: ChildProcess;
  url: string;
  adminKey: string;
}

/** Starts test/support/runtime-server.ts with `env` (DATA_DIR included); ready once it listens. */
export async function startInstance(env: Record<string, string>): Promise<RuntimeInstance> {
  const server = spawnApp({
    script: join(__dirname, 'runtime-server.ts'),
    env: { ...inherited(), RUNTIME_APP_ENV: JSON.stringify(env) },
  });
  const [line] = await server.line(/^\{"port".*$/);
  const { port, adminKey } = JSON.parse(line) as { port: number; adminKey: string };
  return { child: server.child, url: `http://127.0.0.1:${port}`, adminKey };
}

/** The test process's environment, as the runtime server reads it (its Redis, its adapter). */
function inherited(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
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
