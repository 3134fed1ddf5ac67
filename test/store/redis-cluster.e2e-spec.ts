import { OverrideStore } from '../../src/configuration/override.store';
import type { Cluster } from 'ioredis';
import { utcDay } from '../../src/kernel/common/clock';
import { bearer, startApp, TestApp } from '../support/app';
import { rawRedis, until } from '../support/redis-topology';

/**
 * Runs in the `e2e-cluster` matrix project only (jest.matrix.config.js), on its shared cluster of
 * three masters: two instances of one deployment, and a plain cluster client to look at the slots.
 */
describe('Redis Cluster: key layout and two instances (e2e)', () => {
  let a: TestApp;
  let b: TestApp;
  let raw: Cluster;

  beforeAll(async () => {
    a = await startApp();
    // One deployment: the second instance shares the first one's data directory (and key prefix).
    b = await startApp({ dataDir: a.dataDir });
    raw = rawRedis(a.env) as Cluster;
    await raw.ping();
  });
  afterAll(async () => {
    raw?.disconnect();
    await Promise.all([a?.close(), b?.close()]);
  });

  const greet = (t: TestApp, key: string) =>
    t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'Ada' });
  const slotOf = async (key: string) => Number(await raw.cluster('KEYSLOT', key));

  /** The master (host:port) serving each slot range, from CLUSTER SLOTS. */
  async function masterOfSlot(): Promise<(slot: number) => string> {
    const ranges = await raw.cluster('SLOTS');
    return (slot) => {
      const range = ranges.find(([start, end]) => slot >= start && slot <= end);
      if (!range?.[2]) throw new Error(`slot ${slot} is served by no master`);
      return `${range[2][0]}:${range[2][1]}`;
    };
  }

  it("keeps a key's record, quota and rate-limit bucket in one slot", async () => {
    const prefix = a.env.REDIS_KEY_PREFIX;
    const { key, id } = await a.createKeyWithId({ daily_limit: 5, rate_limit: 100 });
    expect((await greet(b, key)).status).toBe(200);
    const record = `${prefix}{${id}}:record`;
    const quota = `${prefix}{${id}}:quota:${utcDay(new Date())}`;
    const rate = `${prefix}{${id}}:rate:default:bucket`;
    // All three exist where the layout says (the read of a plain cluster client follows MOVED).
    expect(await raw.exists(record, quota, rate)).toBe(3);
    expect(await raw.get(quota)).toBe('1');
    const slot = await slotOf(quota);
    expect(await slotOf(rate)).toBe(slot);
    expect(await slotOf(record)).toBe(slot);
    // The secret's lookup, the key index and the audit log are single slots of their own.
    const index = await raw.zrange(`${prefix}{keys}:index`, 0, -1);
    expect(index.filter((member) => member.endsWith(` ${id}`))).toHaveLength(1);
    expect(await raw.zcard(`${prefix}{audit}:log`)).toBeGreaterThanOrEqual(1);
  });

  it("keeps a key's monthly credits and per-tool counts in the key's slot", async () => {
    const prefix = a.env.REDIS_KEY_PREFIX;
    const { key, id } = await a.createKeyWithId({ monthly_limit: 50, rate_limit: 100 });
    expect((await greet(a, key)).status).toBe(200);
    expect((await greet(b, key)).headers['x-quota-monthly-used']).toBe('2');
    const day = utcDay(new Date());
    const record = `${prefix}{${id}}:record`;
    const month = `${prefix}{${id}}:month:${day.slice(0, 7)}`;
    const tools = `${prefix}{${id}}:tools:${day}`;
    expect(await raw.get(month)).toBe('2');
    expect(await raw.hgetall(tools)).toEqual({ 'greet:calls': '2', 'greet:credits': '2' });
    const slot = await slotOf(record);
    expect(await slotOf(month)).toBe(slot);
    expect(await slotOf(tools)).toBe(slot);
  });

  it('revokes on one instance a key refused on the other at once, with keys on all three masters', async () => {
    const master = await masterOfSlot();
    const byMaster = new Map<string, { key: string; id: string }[]>();
    // Ids are random: create keys until every master holds some (bounded: 3 * (2/3)^60 ~ 1e-10).
    for (let i = 0; i < 60 && (byMaster.size < 3 || i < 6); i++) {
      const created = await a.createKeyWithId({ scope_template: 'standard', rate_limit: 100 });
      const node = master(await slotOf(`${a.env.REDIS_KEY_PREFIX}{${created.id}}:record`));
      byMaster.set(node, [...(byMaster.get(node) ?? []), created]);
    }
    expect(byMaster.size).toBe(3);
    for (const keys of byMaster.values()) {
      for (const { key, id } of keys) {
        expect((await greet(b, key)).status).toBe(200);
        await a.http().delete(`/api/v1/auth/api-keys/${id}`).set(bearer(a.adminKey)).expect(200);
        const refused = await greet(b, key);
        expect(refused.status).toBe(401);
        expect(refused.body).toEqual({ detail: 'Invalid API key' });
      }
    }
    // The list (one index slot, records on every master) holds them all, in creation order.
    const listed = await b.http().get('/api/v1/auth/api-keys').set(bearer(b.adminKey)).expect(200);
    const ids = (listed.body as { id: string; status: string }[]).map((k) => k.id);
    for (const keys of byMaster.values()) for (const { id } of keys) expect(ids).toContain(id);
  });

  it("announces an override written on one instance to the other's listeners (pub/sub on a cluster)", async () => {
    let heard = 0;
    const off = b.app.get(OverrideStore).onOverridesChanged(() => heard++);
    try {
      await a.app.get(OverrideStore).setOverride('logging.verbose', true);
      await until(() => heard > 0, "B's listeners called", 2000);
      expect(await b.app.get(OverrideStore).getOverrides()).toMatchObject({
        'logging.verbose': true,
      });
    } finally {
      off();
      await a.app.get(OverrideStore).deleteOverride('logging.verbose');
    }
  });

  it('reports the cluster in /health (no address) and in doctor (its masters)', async () => {
    const health = await a.http().get('/health/ready').expect(200);
    expect(health.body.components.redis).toEqual({ status: 'ok', mode: 'cluster', nodes: 3 });
    const doctor = await a.http().post('/api/v1/services/doctor').set(bearer(a.adminKey)).send({});
    const store = (doctor.body.checks as { name: string; status: string; message: string }[]).find(
      (check) => check.name === 'store',
    );
    expect(store?.status).toBe('pass');
    expect(store?.message).toMatch(/^The redis store Redis Cluster via 127\.0\.0\.1:\d+/);
    expect(store?.message).toContain('3 masters and 0 replicas');
    expect(store?.message).toContain('[cluster, 3 node(s)]');
    expect(store?.message).not.toContain(a.env.REDIS_PASSWORD);
  });
});
