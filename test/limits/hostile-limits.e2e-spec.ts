import { Clock } from '../../src/kernel/common/clock';
import { OverrideStore } from '../../src/configuration/override.store';
import { bearer, startApp, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';
import { RevokeSelfToolModule } from '../support/revoking-tool.module';

const INSUFFICIENT = { detail: 'Insufficient permissions for this operation.' };

/** Regression tests: a key cannot out-spend its rate limit over MCP, nor mint or revoke beyond itself. */
describe('limits a hostile key cannot escape (e2e)', () => {
  // Still: a key's bucket refills only when the test says, however slow the machine.
  const clock = new FakeClock(new Date());
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({
      imports: [RevokeSelfToolModule],
      configure: (b) => b.overrideProvider(Clock).useValue(clock),
    });
  });
  afterAll(() => t.close());

  describe('/mcp and the rate limit', () => {
    const listTools = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
    const mcp = (key: string, body: unknown) =>
      t
        .http()
        .post('/mcp')
        .set(bearer(key))
        .set('Accept', 'application/json, text/event-stream')
        .send(body as object);

    it('counts every JSON-RPC request of a batch: 100 tools/list on a 5/s key is 429 and runs nothing', async () => {
      const key = await t.createKey({ scope_template: 'standard', rate_limit: 5 });
      const res = await mcp(
        key,
        Array.from({ length: 100 }, (_, i) => listTools(i)),
      );
      expect(res.status).toBe(429);
      expect(res.body).toEqual({
        detail: expect.stringMatching(/^Rate limit exceeded: 5 requests per second\./),
      });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      // Nothing was counted: the whole budget is still there for a batch that fits.
      const fits = await mcp(
        key,
        Array.from({ length: 5 }, (_, i) => listTools(i)),
      );
      expect(fits.status).toBe(200);
      expect(fits.body).toHaveLength(5);
      expect(fits.headers['x-ratelimit-limit']).toBe('5');
      expect(fits.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(fits.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(1);
      // The budget is one per key: REST now finds it spent.
      const rest = await t.http().get('/api/v1/auth/me').set(bearer(key));
      expect(rest.status).toBe(429);
    });

    it('counts every message, notifications too, and a tools/call once', async () => {
      const key = await t.createKey({ scope_template: 'standard', rate_limit: 3 });
      const call = await mcp(key, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'greet', arguments: { name: 'Ada' } },
      });
      expect(call.status).toBe(200);
      expect(call.headers['x-ratelimit-remaining']).toBe('2');
      const note = await mcp(key, { jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(note.status).toBe(202);
      expect(note.headers['x-ratelimit-remaining']).toBe('1');
      const after = await mcp(key, listTools(2));
      expect(after.status).toBe(200);
      expect(after.headers['x-ratelimit-remaining']).toBe('0');
    });

    it("refuses a 5/s key's batch of 10 notifications with 429", async () => {
      const key = await t.createKey({ scope_template: 'standard', rate_limit: 5 });
      const notes = Array.from({ length: 10 }, () => ({
        jsonrpc: '2.0',
        method: 'notifications/initialized',
      }));
      const res = await mcp(key, notes);
      expect(res.status).toBe(429);
      expect(res.body).toEqual({
        detail: expect.stringMatching(/^Rate limit exceeded: 5 requests per second\./),
      });
    });

    it('counts a POST that holds no JSON-RPC message at all once', async () => {
      const key = await t.createKey({ scope_template: 'standard', rate_limit: 2 });
      for (const raw of ['[]', '"junk"', '42']) {
        const res = await t
          .http()
          .post('/mcp')
          .set(bearer(key))
          .set('Accept', 'application/json, text/event-stream')
          .set('Content-Type', 'application/json')
          .send(raw);
        expect(res.status).toBeLessThan(500);
      }
      const last = await mcp(key, listTools(1));
      expect(last.status).toBe(429);
    });

    it('refuses a batch with two requests of one id whole: HTTP 400, -32600, nothing runs or counts', async () => {
      const key = await t.createKey({ scope_template: 'standard', rate_limit: 5 });
      const set = (id: number, value: string) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'config_set', arguments: { key: 'llm_config.cache_dir', value } },
      });
      const res = await mcp(key, [set(1, 'dup-a'), set(2, 'dup-b'), set(1, 'dup-c')]);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringMatching(/id/) },
      });
      expect(await t.app.get(OverrideStore).getOverrides()).not.toHaveProperty(
        'llm_config.cache_dir',
      );
      const next = await mcp(key, listTools(9));
      expect(next.headers['x-ratelimit-remaining']).toBe('4');
    });

    it('refuses a message whose _meta holds more than 64 entries: HTTP 400, -32602, counted, nothing runs', async () => {
      const key = await t.createKey({ scope_template: 'standard', rate_limit: 5, daily_limit: 10 });
      const _meta = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]));
      const call = {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'greet', arguments: { name: 'A' }, _meta },
      };
      const res = await mcp(key, call);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
      const note = await mcp(key, {
        jsonrpc: '2.0',
        method: 'notifications/initialized',
        params: { _meta },
      });
      expect(note.status).toBe(400);
      expect(note.body).toMatchObject({ id: null, error: { code: -32602 } });
      // 64 entries are fine; the two refusals counted against the rate limit, not the quota.
      const fine = await mcp(key, {
        ...call,
        params: { ...call.params, _meta: Object.fromEntries(Object.entries(_meta).slice(0, 64)) },
      });
      expect(fine.status).toBe(200);
      expect(fine.headers['x-ratelimit-remaining']).toBe('2');
      const usage = await t.http().get('/api/v1/usage').set(bearer(key));
      expect(usage.body).toMatchObject({ used: 1 });
    });

    it('stops the calls of a batch not yet started once the key is revoked during it', async () => {
      const key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
      const call = (id: number, name: string, args: object) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: args },
      });
      const res = await mcp(key, [
        call(1, 'greet', { name: 'before' }),
        call(2, 'revoke_self', {}),
        call(3, 'greet', { name: 'after' }),
        call(4, 'greet', { name: 'after' }),
      ]);
      expect(res.status).toBe(200);
      const byId = new Map(
        (res.body as { id: number; result: Record<string, unknown> }[]).map((m) => [
          m.id,
          m.result,
        ]),
      );
      expect(byId.get(1)).toMatchObject({ structuredContent: { message: 'Hello, before!' } });
      expect(byId.get(2)).toMatchObject({ structuredContent: { revoked: expect.any(String) } });
      for (const id of [3, 4]) {
        expect(byId.get(id)).toMatchObject({
          isError: true,
          content: [{ type: 'text', text: 'Invalid API key' }],
        });
      }
      expect((await mcp(key, listTools(5))).status).toBe(401);
    });
  });

  describe('no escalation', () => {
    const create = (key: string, body: Record<string, unknown>) =>
      t
        .http()
        .post('/api/v1/auth/api-keys')
        .set(bearer(key))
        .send({ name: 'minted', ...body });

    it('a used-up free * key cannot create an unlimited key, nor one above its own limits', async () => {
      const free = await t.createKey({ scope_template: 'admin', plan: 'free' });
      for (const body of [
        { plan: 'unlimited' },
        { plan: 'pro' },
        { daily_limit: 101 },
        { rate_limit: 6 },
        { plan: 'free', rate_limit: 1000 },
      ]) {
        const res = await create(free, body);
        expect({ body, status: res.status }).toEqual({ body, status: 403 });
        expect(res.body).toEqual(INSUFFICIENT);
      }
      // A fresh key of the same kind: the five refusals spent the first one's 5 calls a second.
      const sameKind = await t.createKey({ scope_template: 'admin', plan: 'free' });
      for (const body of [{ plan: 'free' }, { daily_limit: 100, rate_limit: 5 }, {}]) {
        expect((await create(sameKind, body)).status).toBe(201);
      }
    });

    it('a caller without a daily limit may grant any daily limit, but not a higher rate', async () => {
      const unlimited = await t.createKey({ scope_template: 'admin', plan: 'unlimited' });
      expect((await create(unlimited, { plan: 'pro', daily_limit: 1_000_000 })).status).toBe(201);
      expect((await create(unlimited, { rate_limit: 1001 })).status).toBe(403);
    });

    it('a free admin:write key cannot take over an unlimited key: no rotate, patch, disable or revoke', async () => {
      // The red team's take-over: rotate an unlimited services:execute key with a week of grace,
      // take its new secret, patch admin:write onto it, mint unlimited keys with it.
      const free = await t.createKey({
        scopes: ['admin:write', 'admin:read', 'services:execute'],
        plan: 'free',
      });
      const { id, key: victim } = await t.createKeyWithId({
        scopes: ['services:execute'],
        plan: 'unlimited',
      });
      const keys = `/api/v1/auth/api-keys/${id}`;
      for (const res of [
        await t.http().post(`${keys}/rotate`).set(bearer(free)).send({ grace_seconds: 604800 }),
        await t
          .http()
          .patch(keys)
          .set(bearer(free))
          .send({ scopes: ['admin:write'] }),
        await t.http().patch(keys).set(bearer(free)).send({ name: 'renamed' }),
        await t.http().patch(keys).set(bearer(free)).send({ enabled: false }),
        await t.http().delete(keys).set(bearer(free)),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual(INSUFFICIENT);
      }
      const view = await t.http().get(keys).set(bearer(t.adminKey));
      expect(view.body).toMatchObject({ name: 'test', status: 'active', plan: 'unlimited' });
      expect(view.body.previous_key_expires_at).toBeNull();
      const still = await t
        .http()
        .post('/api/v1/services/greet')
        .set(bearer(victim))
        .send({ name: 'A' });
      expect(still.status).toBe(200);
    });

    it("a key whose own limits beat the caller's is out of reach too, whatever its plan", async () => {
      const free = await t.createKey({
        scopes: ['admin:write', 'admin:read', 'services:execute'],
        plan: 'free',
      });
      const generous = await t.createKeyWithId({
        scopes: ['services:execute'],
        plan: 'free',
        rate_limit: 500,
      });
      const res = await t
        .http()
        .post(`/api/v1/auth/api-keys/${generous.id}/rotate`)
        .set(bearer(free))
        .send({});
      expect(res.status).toBe(403);
      // One within the caller's own limits stays manageable.
      const peer = await t.createKeyWithId({ scopes: ['services:execute'], plan: 'free' });
      const ok = await t
        .http()
        .post(`/api/v1/auth/api-keys/${peer.id}/rotate`)
        .set(bearer(free))
        .send({});
      expect(ok.status).toBe(201);
    });

    it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
      'plan %j is an unknown plan on create and PATCH: 400 value_error, nothing stored',
      async (plan) => {
        const created = await create(t.adminKey, { plan });
        expect(created.status).toBe(400);
        expect(created.body.detail[0]).toMatchObject({
          loc: ['body', 'plan'],
          type: 'value_error',
        });
        const { id, key } = await t.createKeyWithId({ scope_template: 'standard' });
        const patched = await t
          .http()
          .patch(`/api/v1/auth/api-keys/${id}`)
          .set(bearer(t.adminKey))
          .send({ plan });
        expect(patched.status).toBe(400);
        expect(patched.body.detail[0]).toMatchObject({
          loc: ['body', 'plan'],
          type: 'value_error',
        });
        const call = await t
          .http()
          .post('/api/v1/services/greet')
          .set(bearer(key))
          .send({ name: 'A' });
        expect(call.status).toBe(200);
        // The free plan's bucket: 15 at once, refilled at 5 a second.
        expect(call.headers['x-ratelimit-limit']).toBe('15');
        expect(call.headers['x-ratelimit-policy']).toBe('5;w=1;burst=15');
      },
    );

    it('a scope the caller lacks is refused with exactly the 403 text', async () => {
      const writer = await t.createKey({ scopes: ['admin:write'], plan: 'unlimited' });
      const res = await create(writer, { scopes: ['admin:read'] });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(INSUFFICIENT);
    });

    it('an admin:write-only key cannot revoke a * key, and the * key keeps working', async () => {
      const writer = await t.createKey({ scopes: ['admin:write'], plan: 'unlimited' });
      const { key: root, id } = await t.createKeyWithId({ scope_template: 'admin' });
      const res = await t.http().delete(`/api/v1/auth/api-keys/${id}`).set(bearer(writer));
      expect(res.status).toBe(403);
      expect(res.body).toEqual(INSUFFICIENT);
      expect((await t.http().get('/api/v1/auth/me').set(bearer(root))).status).toBe(200);
      const { id: peer } = await t.createKeyWithId({ scopes: ['admin:write'] });
      const ok = await t.http().delete(`/api/v1/auth/api-keys/${peer}`).set(bearer(writer));
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ id: peer, status: 'revoked' });
    });
  });
});
