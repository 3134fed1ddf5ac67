import type { Response } from 'supertest';
import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { writeConfigFile } from '../support/config';
import { metricValue } from '../support/metrics';
import { usingSharedRedis } from '../support/redis';
import { SharedToolModule, turnstile } from '../support/shared-tool.module';

const ASYNC = { Prefer: 'respond-async' };
const AT_CAPACITY = { detail: "Tool 'shared' is at capacity; retry shortly." };

/** Polls `read` until `done` holds of its value (at most ~10 s). */
async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('condition not met in time');
}

/**
 * The app with `shared`: four slots and eight places in its queue, so that the default share of a
 * quarter is one slot and two places for a caller while another caller wants the tool. `share`:
 * CONFIG_FILE's `tools.shared.per_caller_share`.
 */
async function startShared(dataDir = tempDataDir(), share?: number): Promise<TestApp> {
  const yaml = `tools:\n  shared:\n    per_caller_share: ${share}\n`;
  return startApp({
    dataDir,
    imports: [SharedToolModule],
    env: share === undefined ? {} : { CONFIG_FILE: writeConfigFile(dataDir, yaml) },
  });
}

/** A tool call of `shared` over REST, sent at once (supertest sends a request once awaited). */
function call(t: TestApp, key: string, label: string, headers: object = {}): Promise<Response> {
  return t
    .http()
    .post('/api/v1/services/shared')
    .set(bearer(key))
    .set(headers as Record<string, string>)
    .send({ label })
    .then((res) => res);
}

const metrics = async (t: TestApp) => (await t.http().get('/metrics')).text;
const outcome = async (t: TestApp, name: string) =>
  metricValue(await metrics(t), 'tool_calls_total', { tool: 'shared', outcome: name });
const queued = async (t: TestApp) =>
  metricValue(await metrics(t), 'tool_calls_queued', { tool: 'shared' });
const used = async (t: TestApp, id: string) =>
  (await t.http().get(`/api/v1/auth/api-keys/${id}/usage`).set(bearer(t.adminKey))).body
    .used as number;

/** The refusal of a call past its tool's capacity or its caller's share: the same 503. */
function expectAtCapacity(res: Response): void {
  expect([res.status, res.body, res.headers['retry-after']]).toEqual([503, AT_CAPACITY, '1']);
}

/**
 * Fills `shared` on `t` with `key`'s calls in the background, labelled `<prefix>0` to
 * `<prefix>11` (four running, eight waiting), and two more that the full tool refuses: the
 * invocation ids of the twelve, once the first four run.
 */
async function flood(t: TestApp, key: string, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    const res = await call(t, key, `${prefix}${i}`, ASYNC);
    expect(res.status).toBe(202);
    ids.push(res.body.id as string);
  }
  for (let i = 12; i < 14; i++) expectAtCapacity(await call(t, key, `${prefix}${i}`, ASYNC));
  await until(
    () => turnstile.started.filter((label) => label.startsWith(prefix)).length,
    (n) => n === 4,
  );
  return ids;
}

/** Waits until each invocation has succeeded: none was dropped to make room for another. */
async function allSucceed(t: TestApp, key: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    const view = await until(
      async () => (await t.http().get(`/api/v1/invocations/${id}`).set(bearer(key))).body,
      (body: { status: string }) => body.status !== 'queued' && body.status !== 'running',
    );
    expect(view).toMatchObject({ id, status: 'succeeded' });
  }
}

describe("a tool's fair share per caller (e2e)", () => {
  let t: TestApp;
  let pro: { key: string; id: string };
  let unlimited: { key: string; id: string };

  beforeEach(async () => {
    turnstile.reset();
    t = await startShared();
    pro = await t.createKeyWithId({ plan: 'pro', rate_limit: 1000 });
    unlimited = await t.createKeyWithId({ plan: 'unlimited' });
  });
  afterEach(async () => {
    turnstile.openAll();
    await t.close();
  });

  it('admits another caller while one floods, sync and async, and refuses the flood past its share', async () => {
    // Alone, the flooding key holds every slot and every place; past them it is refused.
    const floodIds = await flood(t, pro.key, 'p');

    // Another caller arrives: admitted past the full queue, async and sync.
    const accepted = await call(t, unlimited.key, 'u-async', ASYNC);
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ tool: 'shared', status: 'queued' });
    let syncAnswer: Response | undefined;
    const sync = call(t, unlimited.key, 'u-sync').then((res) => (syncAnswer = res));
    await until(async () => syncAnswer !== undefined || (await queued(t)) === 10, Boolean);
    expect(syncAnswer).toBeUndefined();

    // While it waits, the flooding key is past its share: 503, async, sync and over MCP.
    expectAtCapacity(await call(t, pro.key, 'p14', ASYNC));
    expectAtCapacity(await call(t, pro.key, 'p15'));
    const mcp = await t
      .http()
      .post('/mcp')
      .set(bearer(pro.key))
      .set('Accept', 'application/json, text/event-stream')
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'shared', arguments: { label: 'p16' } },
      });
    expect(mcp.body.result).toEqual({
      content: [{ type: 'text', text: AT_CAPACITY.detail }],
      isError: true,
    });
    // The newcomer has a share too, two places: its third waiting call is refused.
    expectAtCapacity(await call(t, unlimited.key, 'u-third', ASYNC));
    expect(await queued(t)).toBe(10);

    // Told apart by the metrics: the flood's first two refusals were the full tool's.
    const text = await metrics(t);
    expect(metricValue(text, 'tool_calls_total', { tool: 'shared', outcome: 'capacity' })).toBe(2);
    expect(metricValue(text, 'tool_calls_total', { tool: 'shared', outcome: 'fair_share' })).toBe(
      4,
    );
    expect(metricValue(text, 'tool_calls_total', { tool: 'shared', outcome: 'error' })).toBe(0);
    expect(metricValue(text, 'tool_capacity_rejections_total', { tool: 'shared' })).toBe(6);
    // Refused calls are not charged.
    expect([await used(t, pro.id), await used(t, unlimited.id)]).toEqual([12, 2]);

    // Each freed slot goes to the caller holding fewer, before the flood's waiting calls.
    turnstile.let('p0');
    await until(
      () => turnstile.started.length,
      (n) => n === 5,
    );
    turnstile.let('p1');
    await until(
      () => turnstile.started.length,
      (n) => n === 6,
    );
    expect(turnstile.started.slice(4)).toEqual(['u-async', 'u-sync']);
    turnstile.let('u-sync');
    const answer = await sync;
    expect([answer.status, answer.body]).toEqual([200, { label: 'u-sync' }]);

    // No accepted call was evicted: every one of the flood's runs and succeeds.
    turnstile.openAll();
    await allSucceed(t, pro.key, floodIds);
    await allSucceed(t, unlimited.key, [accepted.body.id as string]);
    expect([...turnstile.started].sort()).toEqual(
      [...floodIds.map((_, i) => `p${i}`), 'u-async', 'u-sync'].sort(),
    );
  });

  it('lets a caller alone use the whole tool, synchronously, and refuses it only at capacity', async () => {
    const answers = Array.from({ length: 12 }, (_, i) => call(t, pro.key, `s${i}`));
    await until(async () => (await queued(t)) === 8 && turnstile.started.length === 4, Boolean);
    expectAtCapacity(await call(t, pro.key, 's12'));
    expect(await outcome(t, 'capacity')).toBe(1);
    expect(await outcome(t, 'fair_share')).toBe(0);
    turnstile.openAll();
    const statuses = (await Promise.all(answers)).map((res) => res.status);
    expect(statuses).toEqual(Array(12).fill(200));
    expect(await used(t, pro.id)).toBe(12);
  });
});

const onRedis = usingSharedRedis() ? it : it.skip;

describe('a fair share on each of two instances sharing Redis (e2e)', () => {
  beforeEach(() => turnstile.reset());
  afterEach(() => turnstile.openAll());

  onRedis('applies the share on each instance to the calls it holds', async () => {
    const a = await startShared();
    const b = await startShared(a.dataDir);
    try {
      const pro = await a.createKey({ plan: 'pro', rate_limit: 1000 });
      const unlimited = await a.createKey({ plan: 'unlimited' });
      // Each instance has its own four slots and eight places: the flood fills both.
      const onA = await flood(a, pro, 'a');
      const onB = await flood(b, pro, 'b');
      for (const [app, label] of [
        [a, 'ua'],
        [b, 'ub'],
      ] as const) {
        const accepted = await call(app, unlimited, label, ASYNC);
        expect([accepted.status, accepted.body.status]).toEqual([202, 'queued']);
        expectAtCapacity(await call(app, pro, `${label}-flood`, ASYNC));
        expect(await outcome(app, 'fair_share')).toBe(1);
        expect(await outcome(app, 'capacity')).toBe(2);
        expect(await queued(app)).toBe(9);
      }
      turnstile.let('a0');
      turnstile.let('b0');
      await until(
        () => turnstile.started.length,
        (n) => n === 10,
      );
      expect(turnstile.started.slice(8).sort()).toEqual(['ua', 'ub']);
      turnstile.openAll();
      // Either instance reads the calls of both; every accepted call runs.
      await allSucceed(b, pro, onA);
      await allSucceed(a, pro, onB);
    } finally {
      turnstile.openAll();
      await b.close();
      await a.close();
    }
  });
});

describe('tools.<name>.per_caller_share in CONFIG_FILE (e2e)', () => {
  beforeEach(() => turnstile.reset());
  afterEach(() => turnstile.openAll());

  it.each([
    [0.5, 4],
    [1, 0],
  ])('sets the share: at %s, the newcomer waits in %s places', async (share, places) => {
    const t = await startShared(tempDataDir(), share);
    try {
      const pro = await t.createKey({ plan: 'pro', rate_limit: 1000 });
      const unlimited = await t.createKey({ plan: 'unlimited' });
      await flood(t, pro, 'p');
      for (let i = 0; i < places; i++) {
        expect((await call(t, unlimited, `u${i}`, ASYNC)).status).toBe(202);
      }
      expectAtCapacity(await call(t, unlimited, `u${places}`, ASYNC));
      // A share of 1 is no share: the newcomer finds the tool at capacity.
      expect(await outcome(t, places === 0 ? 'capacity' : 'fair_share')).toBe(places === 0 ? 3 : 1);
    } finally {
      turnstile.openAll();
      await t.close();
    }
  });

  it.each([
    ['0', '0'],
    ['1.5', '1.5'],
    ['-0.25', '-0.25'],
    ['half', '"half"'],
    ["'0.5'", '"0.5"'],
    ['[]', '[]'],
  ])('stops the start on %s', async (value, shown) => {
    const dataDir = tempDataDir();
    const configFile = writeConfigFile(
      dataDir,
      `tools:\n  doctor:\n    per_caller_share: ${value}\n`,
    );
    await expect(startApp({ dataDir, env: { CONFIG_FILE: configFile } })).rejects.toThrow(
      `Invalid CONFIG_FILE: tools.doctor.per_caller_share must be a number greater than 0 and at most 1, got ${shown}`,
    );
  });
});
