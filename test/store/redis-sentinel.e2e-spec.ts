import type { Response } from 'supertest';
import { bearer, startApp, TestApp } from '../support/app';
import { parseInfo } from '../../src/kernel/store/redis/redis.connection';
import { SentinelTopology, until, withNode } from '../support/redis-topology';

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

/**
 * Runs in the `e2e-sentinel` matrix project only (jest.matrix.config.js). A topology of its own,
 * since the test kills its master: one master, one replica, three Sentinels with short timings
 * (a master is down after 1 s of silence), and two instances of one deployment going through them.
 */
describe('Redis Sentinel: failover under load (e2e)', () => {
  const PREFIX = 'tis-failover:';
  let topology: SentinelTopology;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    topology = await SentinelTopology.start({ downAfterMs: 1000, failoverTimeoutMs: 2000 });
    const env = { ...topology.env(), REDIS_KEY_PREFIX: PREFIX };
    a = await startApp({ env });
    b = await startApp({ env, dataDir: a.dataDir });
    // Listening servers, so that concurrent supertest calls share one socket each.
    await Promise.all([a.app.listen(0, '127.0.0.1'), b.app.listen(0, '127.0.0.1')]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await topology?.destroy();
  });

  const greet = (t: TestApp, key: string) =>
    t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'Ada' });
  const used = async (t: TestApp, key: string) =>
    ((await t.http().get('/api/v1/usage').set(bearer(key)).expect(200)).body as { used: number })
      .used;

  it('serves again from the promoted replica on both instances, never a 500; counts exactly after; key writes wait for a replica', async () => {
    const L = 10;
    // Key writes wait for the replica (REDIS_WAIT_REPLICAS defaults to 1 under Sentinel): both keys
    // are on the replica when their 201 comes, so the failover cannot lose them.
    const exact = await a.createKeyWithId({ daily_limit: L, rate_limit: 1000 });
    const load = await b.createKeyWithId({ plan: 'unlimited' });
    const onReplica = await withNode(topology.replica.port, topology.password, (r) =>
      r.hget(`${PREFIX}{${exact.id}}:record`, 'id'),
    );
    expect(onReplica).toBe(exact.id);
    const before = await a.http().get('/health').expect(200);
    expect(before.body.components.redis).toEqual({ status: 'ok', mode: 'sentinel', nodes: 2 });

    // Light, bounded load: two sequential callers per instance. Every answer is kept.
    const seen: Response[] = [];
    const call = async (t: TestApp) => {
      const res = await greet(t, load.key);
      seen.push(res);
      return res;
    };
    let stop = false;
    const caller = async (t: TestApp) => {
      for (let i = 0; i < 5000 && !stop; i++) {
        if ((await call(t)).status !== 200) await new Promise((r) => setTimeout(r, 20));
      }
    };
    const callers = [a, b, a, b].map(caller);
    await until(
      () =>
        count(
          seen.map((r) => r.status),
          200,
        ) >= 40,
      'calls served before the kill',
    );

    const killedAt = Date.now();
    await topology.failOver();
    await until(
      async () => (await call(a)).status === 200 && (await call(b)).status === 200,
      'both instances serving from the promoted replica',
      20_000 - (Date.now() - killedAt),
    );
    const refusedAfterKill = seen.length;
    await until(
      () =>
        count(
          seen.slice(refusedAfterKill).map((r) => r.status),
          200,
        ) >= 20,
      'load served again',
    );
    stop = true;
    await Promise.all(callers);

    // Only 200s and 503s: the outage was answered, never a 500, never an uncounted call.
    const statuses = seen.map((r) => r.status);
    expect(new Set(statuses)).toEqual(new Set([200, 503]));
    for (const res of seen.filter((r) => r.status === 503)) {
      expect(res.body).toEqual({
        detail: 'Service temporarily unavailable: the data store cannot be reached. Retry shortly.',
      });
    }
    // Counts do not wait for the replica: the last moments before the kill may be lost (see
    // docs/scaling.md), but nothing is counted that was not answered (served, or cut off: 503).
    expect(await used(a, load.key)).toBeLessThanOrEqual(statuses.length);

    // Quota exactness on the promoted master: limit L, 3L calls at once over A and B.
    const burst = await Promise.all(
      Array.from({ length: 3 * L }, (_, i) => greet(i % 2 ? b : a, exact.key)),
    );
    const burstStatuses = burst.map((r) => r.status);
    expect(count(burstStatuses, 200)).toBe(L);
    expect(count(burstStatuses, 402)).toBe(2 * L);
    expect(await used(b, exact.key)).toBe(L);

    const after = await b.http().get('/health/ready').expect(200);
    expect(after.body.components.redis).toEqual({ status: 'ok', mode: 'sentinel', nodes: 1 });

    // The promoted master has no replica left: a key write cannot be acknowledged, so it is a 503
    // (until the old master comes back and Sentinel makes it a replica), while tool calls go on.
    const replicas = await withNode(topology.replica.port, topology.password, async (r) =>
      Number(parseInfo(await r.info('replication')).connected_slaves),
    );
    expect(replicas).toBe(0);
    const create = await a
      .http()
      .post('/api/v1/auth/api-keys')
      .set(bearer(a.adminKey))
      .send({ name: 'unacknowledged' });
    expect(create.status).toBe(503);
    expect(create.body).toEqual({
      detail: 'Service temporarily unavailable: the data store cannot be reached. Retry shortly.',
    });

    const doctor = await b.http().post('/api/v1/services/doctor').set(bearer(b.adminKey)).send({});
    const store = (doctor.body.checks as { name: string; status: string; message: string }[]).find(
      (check) => check.name === 'store',
    );
    expect(store?.status).toBe('warn');
    expect(store?.message).toContain(`master now 127.0.0.1:${topology.replica.port}`);
    expect(store?.message).toContain('REDIS_WAIT_REPLICAS is 1');
    expect(store?.message).not.toContain(topology.password);
    expect(store?.message).not.toContain(topology.sentinelPassword);
    expect((await greet(a, load.key)).status).toBe(200);
  }, 90_000);
});
