import type { TestingModuleBuilder } from '@nestjs/testing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Clock } from '../../src/kernel/common/clock';
import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';
import { PricedToolsModule } from '../support/priced-tools.module';
import { usingSharedRedis } from '../support/redis';
import { registeredToolNames } from '../support/registered-tools';
import { RuntimeToolsModule } from '../support/runtime-tools.module';

const COST: Record<string, number> = { three: 3, seven: 7 };
const DAILY_TEXT = /^Daily request limit exceeded \((\d+)\/(\d+)\)\. Resets in \d+h \d+m\.$/;
const MONTHLY_TEXT = /^Monthly request limit exceeded \((\d+)\/(\d+)\)\. Resets in \d+d \d+h\.$/;

/** A call's outcome, however it travelled: counted (its cost) or refused 402 (its text). */
interface Outcome {
  tool: string;
  ok: boolean;
  refusal?: string;
}

describe('Credits: a call costs its tool, daily and monthly limits together (e2e)', () => {
  let a: TestApp;
  /** On Redis, a second instance of the same deployment; on SQLite the same one. */
  let b: TestApp;
  const clock = new FakeClock(new Date('2031-01-31T22:00:00.000Z'));

  beforeAll(async () => {
    const options = {
      imports: [PricedToolsModule, RuntimeToolsModule],
      configure: (builder: TestingModuleBuilder) => builder.overrideProvider(Clock).useValue(clock),
    };
    a = await startApp(options);
    b = usingSharedRedis() ? await startApp({ ...options, dataDir: a.dataDir }) : a;
  });
  afterAll(async () => {
    if (b !== a) await b.close();
    await a.close();
  });
  beforeEach(() => clock.set(new Date('2031-01-31T22:00:00.000Z')));

  const rest = async (app: TestApp, key: string, tool: string): Promise<Outcome> => {
    const res = await app.http().post(`/api/v1/services/${tool}`).set(bearer(key)).send({});
    if (res.status === 402) return { tool, ok: false, refusal: res.body.detail as string };
    expect(res.status).toBe(200);
    expect(res.headers['x-quota-cost']).toBe(String(COST[tool]));
    return { tool, ok: true };
  };
  const mcp = async (app: TestApp, key: string, tool: string): Promise<Outcome> => {
    const res = await app
      .http()
      .post('/mcp')
      .set(bearer(key))
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {} } });
    expect(res.status).toBe(200);
    const result = res.body.result as {
      isError?: boolean;
      content: { text: string }[];
      _meta?: Record<string, { cost: number }>;
    };
    if (result.isError) {
      return { tool, ok: false, refusal: result.content[0].text.replace(/ Retry after .*$/, '') };
    }
    expect(result._meta?.['io.tis/quota'].cost).toBe(COST[tool]);
    return { tool, ok: true };
  };
  const usage = async (key: string) =>
    (await a.http().get('/api/v1/usage').set(bearer(key))).body as {
      used: number;
      monthly: { used: number; limit: number } | null;
      history: { by_tool: Record<string, { calls: number; credits: number; failed: number }> }[];
    };

  it.each([
    ['daily', { daily_limit: 50 }, DAILY_TEXT],
    ['monthly', { monthly_limit: 50 }, MONTHLY_TEXT],
  ])(
    'charges exactly the calls that fit a %s limit, over REST and MCP on two instances, none partly',
    async (which, limits, text) => {
      const key = await a.createKey({ ...limits, plan: 'unlimited', rate_limit: 1000 });
      const calls = Array.from({ length: 24 }, (_, i) => {
        const tool = i % 3 === 0 ? 'seven' : 'three';
        const app = i % 2 ? b : a;
        return (i % 4 < 2 ? rest : mcp)(app, key, tool);
      });
      const outcomes = await Promise.all(calls);
      const view = await usage(key);
      const used = which === 'daily' ? view.used : (view.monthly?.used as number);
      const charged = outcomes.filter((o) => o.ok).reduce((sum, o) => sum + COST[o.tool], 0);
      // Nothing partly charged: what was counted is what the calls that ran cost.
      expect(used).toBe(charged);
      expect(used).toBeLessThanOrEqual(50);
      const refused = outcomes.filter((o) => !o.ok);
      expect(refused.length).toBeGreaterThan(0);
      // A call was refused only for not fitting in what was left, which only fell since.
      for (const o of refused) {
        expect(50 - used).toBeLessThan(COST[o.tool]);
        expect(o.refusal).toMatch(text);
      }
    },
  );

  it('answers a month spent with its own 402 and Retry-After, and resets at the next UTC month', async () => {
    clock.set(new Date('2031-01-31T23:00:00.000Z'));
    const key = await a.createKey({ monthly_limit: 5, plan: 'unlimited' });
    const greet = () =>
      a.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'Ada' });
    for (let i = 0; i < 5; i++) {
      const res = await greet();
      expect([res.status, res.headers['x-quota-monthly-used']]).toEqual([200, String(i + 1)]);
    }
    const refused = await greet();
    expect([refused.status, refused.body]).toEqual([
      402,
      { detail: 'Monthly request limit exceeded (5/5). Resets in 0d 1h.' },
    ]);
    expect(refused.headers['retry-after']).toBe('3600');
    expect(refused.headers['x-quota-monthly-limit']).toBe('5');
    expect(refused.headers['x-quota-monthly-remaining']).toBe('0');
    clock.set(new Date('2031-02-01T00:00:00.500Z'));
    const next = await greet();
    expect([next.status, next.headers['x-quota-monthly-used']]).toEqual([200, '1']);
    expect((await usage(key)).monthly).toMatchObject({ used: 1, limit: 5 });
  });

  it("holds a monthly limit set mid-month to the month's whole spend", async () => {
    const key = await a.createKey({ plan: 'unlimited' });
    const seven = () => a.http().post('/api/v1/services/seven').set(bearer(key)).send({});
    for (let i = 0; i < 3; i++) expect((await seven()).status).toBe(200);
    expect((await usage(key)).monthly).toBeNull();
    const id = ((await a.http().get('/api/v1/auth/me').set(bearer(key))).body as { key_id: string })
      .key_id;
    const patched = await a
      .http()
      .patch(`/api/v1/auth/api-keys/${id}`)
      .set(bearer(a.adminKey))
      .send({ monthly_limit: 25 });
    expect(patched.status).toBe(200);
    expect((await usage(key)).monthly).toMatchObject({ limit: 25, used: 21, remaining: 4 });
    const refused = await seven();
    expect([refused.status, refused.body]).toEqual([
      402,
      { detail: 'Monthly request limit exceeded (21/25). Resets in 0d 2h.' },
    ]);
  });

  it('lets the monthly 402 win when both limits are spent, and keeps the daily text for cost 1', async () => {
    const both = await a.createKey({ daily_limit: 3, monthly_limit: 3, plan: 'unlimited' });
    const greet = (key: string) =>
      a.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'Ada' });
    for (let i = 0; i < 3; i++) expect((await greet(both)).status).toBe(200);
    expect((await greet(both)).body.detail).toMatch(/^Monthly request limit exceeded \(3\/3\)/);
    const daily = await a.createKey({ daily_limit: 1 });
    expect((await greet(daily)).headers['x-quota-cost']).toBe('1');
    const refused = await greet(daily);
    expect(refused.body.detail).toBe('Daily request limit exceeded (1/1). Resets in 2h 0m.');
    expect(refused.headers['retry-after']).toBe('7200');
  });

  it('counts usage per tool and day, with the calls that failed with a 5xx or 504', async () => {
    const key = await a.createKey({ plan: 'unlimited' });
    const call = (tool: string, body: object = {}) =>
      a.http().post(`/api/v1/services/${tool}`).set(bearer(key)).send(body);
    expect((await call('broken')).status).toBe(502);
    expect((await call('broken', { label: 'unexpected' })).status).toBe(500);
    expect((await call('obedient')).status).toBe(504);
    expect((await call('seven')).status).toBe(200);
    // A 400 of validation is counted (it passed the quota), and did not fail on the server's side.
    expect((await call('seven', { colour: 'red' })).status).toBe(400);
    const byTool = async () => (await usage(key)).history[0].by_tool;
    // The failures' counts are one more write after their answer.
    for (let i = 0; i < 50 && (await byTool()).broken?.failed !== 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await byTool()).toEqual({
      broken: { calls: 2, credits: 2, failed: 2 },
      obedient: { calls: 1, credits: 1, failed: 1 },
      seven: { calls: 2, credits: 14, failed: 0 },
    });
    expect((await usage(key)).used).toBe(17);
  });

  it('holds a monthly limit to the no-escalation rule', async () => {
    const manager = await a.createKey({ scopes: ['admin:*', 'services:*'], plan: 'pro' });
    const create = (body: object) =>
      a
        .http()
        .post('/api/v1/auth/api-keys')
        .set(bearer(manager))
        .send({ name: 'm', ...body });
    expect((await create({ plan: 'pro', monthly_limit: 200_001 })).status).toBe(403);
    const { body: made } = await create({ plan: 'pro', monthly_limit: 1000 });
    expect(made.monthly_limit).toBe(1000);
    const patch = (body: object) =>
      a
        .http()
        .patch(`/api/v1/auth/api-keys/${made.id as string}`)
        .set(bearer(manager))
        .send(body);
    expect((await patch({ monthly_limit: 300_000 })).status).toBe(403);
    expect((await patch({ monthly_limit: 2000 })).body.monthly_limit).toBe(2000);
    // A free key's month is bounded by 31 of its days (3,100 credits): within the manager's.
    expect((await create({ plan: 'free' })).status).toBe(201);
  });
});

describe('Credits: a plan prices a tool (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    const dataDir = tempDataDir();
    const config = join(dataDir, 'config.yaml');
    writeFileSync(config, 'limits:\n  plans:\n    pro:\n      tool_costs:\n        greet: 20\n');
    t = await startApp({ dataDir, env: { CONFIG_FILE: config } });
  });
  afterAll(() => t.close());

  it("charges a plan's own price, and shows each caller its price before and after a call", async () => {
    const pro = await t.createKey({ plan: 'pro' });
    const free = await t.createKey({ plan: 'free' });
    const greet = (key: string) =>
      t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'Ada' });
    const res = await greet(pro);
    expect([res.headers['x-quota-cost'], res.headers['x-quota-used']]).toEqual(['20', '20']);
    expect(res.headers['x-quota-monthly-used']).toBe('20');
    expect((await greet(free)).headers['x-quota-cost']).toBe('1');
    const cost = async (key: string) =>
      (
        (await t.http().get('/api/v1/services').set(bearer(key))).body.tools as {
          name: string;
          cost: number;
        }[]
      ).find((tool) => tool.name === 'greet')?.cost;
    expect([await cost(pro), await cost(free)]).toEqual([20, 1]);
    const listed = await t
      .http()
      .post('/mcp')
      .set(bearer(pro))
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const greetTool = (listed.body.result.tools as { name: string; _meta: object }[]).find(
      (tool) => tool.name === 'greet',
    );
    expect(greetTool?._meta).toEqual({ 'io.tis/cost': 20 });
  });

  it('stops the start on a price for a tool that does not exist', async () => {
    const dataDir = tempDataDir();
    const config = join(dataDir, 'config.yaml');
    writeFileSync(config, 'limits:\n  plans:\n    pro:\n      tool_costs:\n        gret: 20\n');
    await expect(startApp({ dataDir, env: { CONFIG_FILE: config } })).rejects.toThrow(
      `Invalid CONFIG_FILE: limits.plans.pro.tool_costs.gret names no tool (tools: ${registeredToolNames().sort().join(', ')})`,
    );
  });
});
