import request from 'supertest';
import { baseEnv, bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { writeConfigFile } from '../support/config';
import { usingSharedRedis } from '../support/redis';
import { killHard, RuntimeInstance, startInstance, until } from '../support/runtime-instance';
import { RuntimeToolsModule } from '../support/runtime-tools.module';

/** What a call of `slow` costs on the `pro` plan here: credits tell refunded calls apart. */
const COST = 5;
const STOPPED = 'The instance running this call stopped.';

/** Two slots and two places in the queue: of four calls, two run and two wait. */
const CONFIG = `tools:
  slow:
    timeout_ms: 600000
    concurrency: 2
    queue: 2
limits:
  plans:
    pro:
      tool_costs:
        slow: ${COST}
`;

interface Usage {
  used: number;
  monthly: { used: number } | null;
  history: { by_tool: Record<string, { calls: number; credits: number; failed: number }> }[];
}

/** A key's own usage: today's credits, the month's, and `slow` by tool. */
function summary(usage: Usage) {
  return {
    used: usage.used,
    month: usage.monthly?.used,
    slow: usage.history[0].by_tool.slow,
  };
}

/**
 * A call accepted but never started when its instance stopped is refunded: its credits leave the
 * day and the month, `by_tool.<tool>.failed` counts it, and its Idempotency-Key keeps no answer (a
 * retry runs anew). A call that started and was lost stays charged and counts as failed. The
 * sweep finds them whether or not anyone reads the calls, and exactly one instance settles each.
 */
describe('Refunds of calls that never ran (e2e)', () => {
  const instances: RuntimeInstance[] = [];
  afterAll(async () => {
    await Promise.all(instances.map(killHard));
  });

  it('after a kill -9, refunds the queued calls exactly once and keeps the started ones charged and failed', async () => {
    const dataDir = tempDataDir();
    const env = {
      ...baseEnv(dataDir),
      DATA_DIR: dataDir,
      CONFIG_FILE: writeConfigFile(dataDir, CONFIG),
      INVOCATION_LEASE_MS: '1500',
    };
    // On Redis two more instances share the store and race to settle the calls; on SQLite the
    // same data, restarted, settles them.
    const shared = usingSharedRedis();
    // The first start makes the admin key and writes its file, which the others read: it comes
    // first, alone.
    const a = await startInstance(env);
    instances.push(a);
    const others = shared ? await Promise.all([env, env].map((e) => startInstance(e))) : [];
    instances.push(...others);
    const created = await request(a.url)
      .post('/api/v1/auth/api-keys')
      .set(bearer(a.adminKey))
      .send({ name: 'refunds', plan: 'pro', monthly_limit: 100_000, rate_limit: 1000 });
    expect(created.status).toBe(201);
    const key = created.body.key as string;

    const accepted: { id: string; status: string; idempotencyKey: string }[] = [];
    for (let i = 0; i < 4; i++) {
      const idempotencyKey = `refund-${i}`;
      const res = await request(a.url)
        .post('/api/v1/services/slow')
        .set(bearer(key))
        .set('Prefer', 'respond-async')
        .set('Idempotency-Key', idempotencyKey)
        .send({ ms: 300_000, label: `r${i}` });
      expect(res.status).toBe(202);
      accepted.push({
        id: res.body.id as string,
        status: res.body.status as string,
        idempotencyKey,
      });
    }
    expect(accepted.map((c) => c.status)).toEqual(['running', 'running', 'queued', 'queued']);
    const usageOn = async (instance: RuntimeInstance) =>
      summary((await request(instance.url).get('/api/v1/usage').set(bearer(key))).body as Usage);
    expect(await usageOn(a)).toEqual({
      used: 4 * COST,
      month: 4 * COST,
      slow: { calls: 4, credits: 4 * COST, failed: 0 },
    });

    await killHard(a);
    const readers = shared ? others : [await startInstance(env)];
    instances.push(...(shared ? [] : readers));
    // Nobody reads the calls: the sweep alone settles them.
    const settled = {
      used: 2 * COST,
      month: 2 * COST,
      slow: { calls: 4, credits: 2 * COST, failed: 4 },
    };
    const seen = await until(
      () => usageOn(readers[0]),
      (usage) => usage.slow.failed >= 4,
      60_000,
    );
    expect(seen).toEqual(settled);
    // Every instance has swept several times since: still settled once.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    for (const reader of readers) expect(await usageOn(reader)).toEqual(settled);

    const reader = readers[readers.length - 1];
    for (const { id } of accepted) {
      const view = await request(reader.url).get(`/api/v1/invocations/${id}`).set(bearer(key));
      expect(view.body).toMatchObject({
        status: 'failed',
        error: { status: 503, detail: STOPPED },
      });
    }
    // The started calls' Idempotency-Keys replay their invocation; the refunded ones' run anew.
    const retry = (idempotencyKey: string, label: string) =>
      request(reader.url)
        .post('/api/v1/services/slow')
        .set(bearer(key))
        .set('Prefer', 'respond-async')
        .set('Idempotency-Key', idempotencyKey)
        .send({ ms: 300_000, label });
    for (const [i, call] of accepted.entries()) {
      const res = await retry(call.idempotencyKey, `r${i}`);
      expect(res.status).toBe(202);
      if (i < 2) {
        expect([res.body.id, res.headers['idempotent-replayed']]).toEqual([call.id, 'true']);
      } else {
        expect(res.body.id).not.toBe(call.id);
        expect(res.headers['idempotent-replayed']).toBeUndefined();
      }
    }
  }, 180_000);
});

describe('Refunds of calls still queued after a SIGTERM drain (e2e)', () => {
  let t: TestApp | undefined;
  afterAll(async () => {
    await t?.close();
  });

  it('refunds the queued calls and keeps the running one charged and failed', async () => {
    const dataDir = tempDataDir();
    const env = {
      CONFIG_FILE: writeConfigFile(dataDir, CONFIG.replace('concurrency: 2', 'concurrency: 1')),
      SHUTDOWN_DRAIN_MS: '100',
    };
    const first = await startApp({ dataDir, env, imports: [RuntimeToolsModule] });
    const { key } = await first.createKeyWithId({
      plan: 'pro',
      monthly_limit: 100_000,
      rate_limit: 1000,
    });
    const statuses: string[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await first
        .http()
        .post('/api/v1/services/slow')
        .set(bearer(key))
        .set('Prefer', 'respond-async')
        .set('Idempotency-Key', `drain-${i}`)
        .send({ ms: 300_000 });
      expect(res.status).toBe(202);
      statuses.push(res.body.status as string);
      ids.push(res.body.id as string);
    }
    expect(statuses).toEqual(['running', 'queued', 'queued']);
    await first.close();

    t = await startApp({ dataDir, env, imports: [RuntimeToolsModule] });
    const usage = (await t.http().get('/api/v1/usage').set(bearer(key))).body as Usage;
    expect(summary(usage)).toEqual({
      used: COST,
      month: COST,
      slow: { calls: 3, credits: COST, failed: 3 },
    });
    for (const id of ids) {
      const view = await t.http().get(`/api/v1/invocations/${id}`).set(bearer(key));
      expect(view.body).toMatchObject({
        status: 'failed',
        error: { status: 503, detail: STOPPED },
      });
    }
    const again = await t
      .http()
      .post('/api/v1/services/slow')
      .set(bearer(key))
      .set('Prefer', 'respond-async')
      .set('Idempotency-Key', 'drain-1')
      .send({ ms: 300_000 });
    expect(again.status).toBe(202);
    expect(again.body.id).not.toBe(ids[1]);
  }, 60_000);
});
