import request from 'supertest';
import { baseEnv, tempDataDir } from '../support/app';
import { usingSharedRedis } from '../support/redis';
import {
  killHard,
  RuntimeInstance as Instance,
  startInstance,
  until,
} from '../support/runtime-instance';

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
