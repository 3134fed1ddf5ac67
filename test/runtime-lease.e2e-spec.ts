import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import request from 'supertest';
import { baseEnv, tempDataDir } from './support/app';
import { tsNodeEntry } from './support/built';
import { usingSharedRedis } from './support/redis';

interface Instance {
  child: ChildProcess;
  url: string;
  adminKey: string;
}

/** The service with the test tools as a child process (test/support/runtime-server.ts). */
async function startInstance(env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, tsNodeEntry(join(__dirname, 'support/runtime-server.ts')), {
    cwd: join(__dirname, '..'),
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

function killHard(instance: Instance): Promise<void> {
  return new Promise((resolve) => {
    if (instance.child.exitCode !== null || instance.child.signalCode !== null) return resolve();
    instance.child.once('exit', () => resolve());
    instance.child.kill('SIGKILL');
  });
}

async function until<T>(
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

/**
 * An instance that stops while running a long call, even by kill -9, leaves nothing `running`
 * forever: its lease lapses, and another instance (on Redis) or the restarted one (SQLite) reports
 * the call failed with the contract's text (within a minute; here the lease is 1.5 s).
 */
describe('Long-running calls outlive the instance that ran them (e2e)', () => {
  const instances: Instance[] = [];
  afterAll(async () => {
    await Promise.all(instances.map(killHard));
  });

  it('reports a call failed once the instance running it was killed with SIGKILL', async () => {
    const dataDir = tempDataDir();
    const env = { ...baseEnv(dataDir), DATA_DIR: dataDir, INVOCATION_LEASE_MS: '1500' };
    const a = await startInstance(env);
    instances.push(a);
    // On Redis a second instance serves beside it; on SQLite the same data, restarted.
    const shared = usingSharedRedis();
    const b = shared ? await startInstance(env) : undefined;
    if (b) instances.push(b);
    const started = await request(a.url)
      .post('/api/v1/services/slow')
      .set('Authorization', `Bearer ${a.adminKey}`)
      .set('Prefer', 'respond-async')
      .send({ ms: 4_000, steps: 100 });
    expect(started.status).toBe(202);
    const id = started.body.id as string;
    const viewOn = (instance: Instance) =>
      request(instance.url)
        .get(`/api/v1/invocations/${id}`)
        .set('Authorization', `Bearer ${instance.adminKey}`);
    expect((await viewOn(b ?? a)).body.status).toBe('running');
    await killHard(a);
    const reader = b ?? (await startInstance(env));
    if (!b) instances.push(reader);
    const seen = await until(
      async () => (await viewOn(reader)).body as { status: string },
      (view) => view.status === 'failed',
      60_000,
    );
    expect(seen).toMatchObject({
      status: 'failed',
      error: { status: 503, detail: 'The instance running this call stopped.' },
      finished_at: expect.any(String),
    });
  }, 120_000);
});
