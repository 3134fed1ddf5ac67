import type { Response } from 'supertest';
import { Clock } from '../../src/kernel/common/clock';
import { bearer, startApp, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';
import { PricedToolsModule } from '../support/priced-tools.module';

const RUNS = '/api/v1/runs';
const ENDED = { detail: 'Run has ended.' };
const DAY = 86_400_000;

/**
 * Runs on two instances sharing one store (one SQLite file on `e2e`, one Redis on `e2e-redis`),
 * both on one clock the test moves: a budget exact at its last credit under 100 concurrent calls
 * spread over both, counted against the run and its parent together or not at all, a token refused
 * at once on both after whatever ends its run (DELETE, its time, its parent revoked, expired or
 * disabled) or loses a scope (its parent's, removed), and ended runs forgotten after 30 days.
 */
describe('runs on two instances (e2e)', () => {
  let a: TestApp;
  let b: TestApp;
  const clock = new FakeClock(new Date());

  beforeAll(async () => {
    a = await start();
    b = await start(a.dataDir);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });
  beforeEach(() => clock.set(new Date()));

  /** An instance on the test's clock, with the priced tools (`three`, `seven`). */
  function start(dataDir?: string): Promise<TestApp> {
    return startApp({
      dataDir,
      imports: [PricedToolsModule],
      configure: (builder) => builder.overrideProvider(Clock).useValue(clock),
    });
  }

  const admin = (t: TestApp) => bearer(t.adminKey);
  const greet = (t: TestApp, token: string, name = 'run') =>
    t.http().post('/api/v1/services/greet').set(bearer(token)).send({ name });
  const newRun = async (t: TestApp, parent: string, body: Record<string, unknown>) => {
    const res = await t.http().post(RUNS).set(bearer(parent)).send(body).expect(201);
    return res.body as { id: string; token: string; expires_at: string };
  };
  const runOf = async (t: TestApp, id: string) =>
    (await t.http().get(`${RUNS}/${id}`).set(admin(t)).expect(200)).body as Record<string, unknown>;
  const usedBy = async (t: TestApp, keyId: string) =>
    (await t.http().get(`/api/v1/auth/api-keys/${keyId}/usage`).set(admin(t)).expect(200)).body
      .used as number;
  /** A call of the run's on each instance: the statuses and bodies of both. */
  const onBoth = async (token: string) => {
    const answers = await Promise.all([greet(a, token), greet(b, token)]);
    return answers.map((res: Response) => [res.status, res.body] as const);
  };

  it('spends a budget of 37 exactly under 100 concurrent calls over both instances', async () => {
    const parent = await a.createKeyWithId({ daily_limit: 1000, rate_limit: 1000 });
    const run = await newRun(a, parent.key, { budget: 37 });
    const before = await usedBy(b, parent.id);

    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => greet(i % 2 ? a : b, run.token, `call ${i}`)),
    );
    const ok = answers.filter((res) => res.status === 200);
    const refused = answers.filter((res) => res.status === 402);
    expect([ok.length, refused.length]).toEqual([37, 63]);
    for (const res of refused) {
      expect(res.body).toEqual({ detail: 'Run budget exhausted (37/37).' });
      expect(res.headers['retry-after']).toBeUndefined();
    }
    // Each charged call saw its own place in the budget: 36 left down to 0, each once.
    const remaining = ok.map((res) => Number(res.headers['x-run-budget-remaining']));
    expect(remaining.sort((x, y) => x - y)).toEqual(Array.from({ length: 37 }, (_, i) => i));

    // The parent's credits moved by the run's exactly, seen alike from both instances.
    expect(await usedBy(a, parent.id)).toBe(before + 37);
    expect(await usedBy(b, parent.id)).toBe(before + 37);
    expect(await runOf(b, run.id)).toMatchObject({
      spent: 37,
      remaining: 0,
      spent_by_tool: { greet: 37 },
    });
    const ledger = await a
      .http()
      .get(`/api/v1/ledger?run=${run.id}&limit=1000`)
      .set(admin(a))
      .expect(200);
    expect(ledger.body.entries).toHaveLength(37);
  });

  it('counts a call against the parent and its run together or not at all, under races', async () => {
    // The parent's day (30) runs out before its two runs' budgets (20 + 20) and its own calls.
    const parent = await a.createKeyWithId({ daily_limit: 30, rate_limit: 1000 });
    const first = await newRun(a, parent.key, { budget: 20 });
    const second = await newRun(b, parent.key, { budget: 20 });
    const callers = [first.token, second.token, parent.key];
    const answers = await Promise.all(
      Array.from({ length: 90 }, (_, i) =>
        greet(i % 2 ? a : b, callers[i % 3], `call ${i}`).then((res) => ({ who: i % 3, res })),
      ),
    );
    const ok = (who: number) => answers.filter((x) => x.who === who && x.res.status === 200);
    expect(answers.filter((x) => x.res.status === 200)).toHaveLength(30);
    expect(ok(0).length).toBeLessThanOrEqual(20);
    expect(ok(1).length).toBeLessThanOrEqual(20);
    for (const { who, res } of answers.filter((x) => x.res.status !== 200)) {
      expect(res.status).toBe(402);
      const text = String(res.body.detail);
      if (text.startsWith('Run budget')) expect(ok(who).length).toBe(20);
      else expect(text).toMatch(/^Daily request limit exceeded \(30\/30\)\./);
    }
    expect(await usedBy(a, parent.id)).toBe(30);
    expect(await runOf(a, first.id)).toMatchObject({ spent: ok(0).length });
    expect(await runOf(b, second.id)).toMatchObject({ spent: ok(1).length });
  });

  it('refuses whole a priced call that no longer fits, under races on both instances', async () => {
    const parent = await a.createKeyWithId({ plan: 'pro', rate_limit: 1000 });
    const run = await newRun(a, parent.key, { budget: 10 });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).http().post('/api/v1/services/three').set(bearer(run.token)).send({}),
      ),
    );
    expect(answers.filter((res) => res.status === 200)).toHaveLength(3);
    for (const res of answers.filter((r) => r.status !== 200)) {
      expect([res.status, res.body]).toEqual([402, { detail: 'Run budget exhausted (9/10).' }]);
    }
    expect(await runOf(b, run.id)).toMatchObject({ spent: 9, remaining: 1 });
    expect(await usedBy(b, parent.id)).toBe(9);
  });

  it('refuses the token on both instances at once after DELETE on one', async () => {
    const parent = await a.createKeyWithId({ rate_limit: 1000 });
    const run = await newRun(a, parent.key, { budget: 10 });
    expect((await onBoth(run.token)).map(([status]) => status)).toEqual([200, 200]);
    const ended = await b.http().delete(`${RUNS}/${run.id}`).set(bearer(parent.key)).expect(200);
    expect(ended.body).toMatchObject({ status: 'ended', ended_reason: 'deleted', spent: 2 });
    expect(await onBoth(run.token)).toEqual([
      [401, ENDED],
      [401, ENDED],
    ]);
    expect(await runOf(a, run.id)).toMatchObject({ status: 'ended', spent: 2 });
  });

  it('refuses the token on both instances from its expires_at on', async () => {
    const parent = await a.createKeyWithId({ rate_limit: 1000 });
    const run = await newRun(b, parent.key, { budget: 10, ttl_seconds: 60 });
    const expiresAt = Date.parse(run.expires_at);
    expect(expiresAt - clock.nowMs()).toBe(60_000);
    clock.set(new Date(expiresAt - 1));
    expect((await onBoth(run.token)).map(([status]) => status)).toEqual([200, 200]);
    clock.set(new Date(expiresAt));
    expect(await onBoth(run.token)).toEqual([
      [401, ENDED],
      [401, ENDED],
    ]);
    expect(await runOf(a, run.id)).toMatchObject({
      status: 'expired',
      ended_reason: 'expired',
      spent: 2,
    });
    const expired = await b.http().get(`${RUNS}?status=expired`).set(bearer(parent.key));
    expect(expired.body.runs.map((r: { id: string }) => r.id)).toEqual([run.id]);
  });

  it('ends the run on both instances when its parent is revoked', async () => {
    const parent = await a.createKeyWithId({ rate_limit: 1000 });
    const run = await newRun(a, parent.key, { budget: 10 });
    await greet(b, run.token).expect(200);
    await a.http().delete(`/api/v1/auth/api-keys/${parent.id}`).set(admin(a)).expect(200);
    expect(await onBoth(run.token)).toEqual([
      [401, ENDED],
      [401, ENDED],
    ]);
    expect(await runOf(b, run.id)).toMatchObject({
      status: 'ended',
      ended_reason: 'parent_revoked',
    });
  });

  it('ends the run on both instances when its parent expires', async () => {
    const parent = await a.createKeyWithId({ rate_limit: 1000, expires_in_days: 1 });
    const run = await newRun(a, parent.key, { budget: 10, ttl_seconds: 604_800 });
    await greet(b, run.token).expect(200);
    clock.set(new Date(clock.nowMs() + DAY + 1000));
    expect(await onBoth(run.token)).toEqual([
      [401, ENDED],
      [401, ENDED],
    ]);
    expect(await runOf(a, run.id)).toMatchObject({
      status: 'ended',
      ended_reason: 'parent_revoked',
    });
  });

  it('ends the run on both instances when its parent is disabled, for good', async () => {
    const parent = await a.createKeyWithId({ rate_limit: 1000 });
    const run = await newRun(a, parent.key, { budget: 10 });
    await greet(a, run.token).expect(200);
    await b
      .http()
      .patch(`/api/v1/auth/api-keys/${parent.id}`)
      .set(admin(b))
      .send({ enabled: false })
      .expect(200);
    expect(await onBoth(run.token)).toEqual([
      [401, ENDED],
      [401, ENDED],
    ]);
    expect(await runOf(a, run.id)).toMatchObject({
      status: 'ended',
      ended_reason: 'parent_disabled',
    });
    // The parent enabled again calls again; the run it had stays ended.
    await a
      .http()
      .patch(`/api/v1/auth/api-keys/${parent.id}`)
      .set(admin(a))
      .send({ enabled: true })
      .expect(200);
    await greet(b, parent.key).expect(200);
    expect(await onBoth(run.token)).toEqual([
      [401, ENDED],
      [401, ENDED],
    ]);
    expect(await runOf(b, run.id)).toMatchObject({ ended_reason: 'parent_disabled' });
  });

  it('loses at its next call, on both instances, a scope removed from its parent; a tool outside its own scopes is 403', async () => {
    const parent = await a.createKeyWithId({
      rate_limit: 1000,
      scopes: ['services:execute:greet', 'services:execute:config_show'],
    });
    const call = (t: TestApp, token: string, tool: string) =>
      t
        .http()
        .post(`/api/v1/services/${tool}`)
        .set(bearer(token))
        .send(tool === 'greet' ? { name: 'x' } : {});
    const both = await newRun(a, parent.key, { budget: 20 });
    const greetOnly = await newRun(b, parent.key, {
      budget: 20,
      scopes: ['services:execute:greet'],
    });
    for (const t of [a, b]) {
      await call(t, both.token, 'config_show').expect(200);
      await call(t, greetOnly.token, 'config_show').expect(403);
      await call(t, greetOnly.token, 'greet').expect(200);
    }
    await a
      .http()
      .patch(`/api/v1/auth/api-keys/${parent.id}`)
      .set(admin(a))
      .send({ scopes: ['services:execute:greet'] })
      .expect(200);
    for (const t of [b, a]) {
      const refused = await call(t, both.token, 'config_show').expect(403);
      expect(refused.body).toEqual({ detail: 'Insufficient permissions for this operation.' });
      await call(t, both.token, 'greet').expect(200);
    }
    // Refusals cost nothing: 2 config_show, 2 + 2 greet.
    expect(await runOf(b, both.id)).toMatchObject({
      status: 'active',
      spent_by_tool: { config_show: 2, greet: 2 },
    });
    expect(await runOf(a, greetOnly.id)).toMatchObject({ spent: 2 });
    // Given back to the parent, the scope is the run's again (it never left the run's own list).
    await b
      .http()
      .patch(`/api/v1/auth/api-keys/${parent.id}`)
      .set(admin(b))
      .send({ scopes: ['services:execute:greet', 'services:execute:config_show'] })
      .expect(200);
    await call(a, both.token, 'config_show').expect(200);
  });

  it("forgets runs ended more than 30 days ago, at an instance's start, and keeps the others", async () => {
    const parent = await a.createKeyWithId({ rate_limit: 1000 });
    const t0 = clock.nowMs();
    const deleted = await newRun(a, parent.key, { budget: 5 });
    const expired = await newRun(a, parent.key, { budget: 5, ttl_seconds: 60 });
    await greet(b, deleted.token).expect(200);
    await a.http().delete(`${RUNS}/${deleted.id}`).set(bearer(parent.key)).expect(200);
    clock.set(new Date(t0 + 2 * DAY));
    const recent = await newRun(b, parent.key, { budget: 5 });
    await b.http().delete(`${RUNS}/${recent.id}`).set(bearer(parent.key)).expect(200);

    // 31 days on: a third instance's start purges (as the hourly purge of every server).
    clock.set(new Date(t0 + 31 * DAY));
    const c = await start(a.dataDir);
    try {
      const status = (id: string) =>
        c
          .http()
          .get(`${RUNS}/${id}`)
          .set(admin(c))
          .then((res) => res.status);
      const gone = async () => [await status(deleted.id), await status(expired.id)];
      for (let i = 0; i < 200 && (await gone()).some((s) => s !== 404); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await gone()).toEqual([404, 404]);
      // Ended 29 days ago: kept.
      expect(await runOf(a, recent.id)).toMatchObject({ status: 'ended', ended_reason: 'deleted' });
      const listed = await b.http().get(RUNS).set(bearer(parent.key)).expect(200);
      expect(listed.body.runs.map((r: { id: string }) => r.id)).toEqual([recent.id]);
      // A forgotten run's token is no run's: an unknown credential.
      const refused = await greet(b, deleted.token).expect(401);
      expect(refused.body).toEqual({ detail: 'Invalid API key' });
    } finally {
      await c.close();
    }
  });
});
