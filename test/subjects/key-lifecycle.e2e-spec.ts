import { Clock } from '../../src/kernel/common/clock';
import { bearer, startApp, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';

const FORBIDDEN = { detail: 'Insufficient permissions for this operation.' };
const INVALID = { detail: 'Invalid API key' };
const KEYS = '/api/v1/auth/api-keys';

describe('key lifecycle: show, patch, enable/disable, rotate (e2e)', () => {
  const clock = new FakeClock(new Date('2031-05-06T10:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ configure: (b) => b.overrideProvider(Clock).useValue(clock) });
  });
  afterAll(() => t.close());

  const admin = () => bearer(t.adminKey);
  const greet = (key: string) =>
    t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'Ada' });
  const patch = (id: string, body: object, as = t.adminKey) =>
    t.http().patch(`${KEYS}/${id}`).set(bearer(as)).send(body);
  const rotate = (id: string, body: object = {}, as = t.adminKey) =>
    t.http().post(`${KEYS}/${id}/rotate`).set(bearer(as)).send(body);

  describe('GET /api/v1/auth/api-keys/<id>', () => {
    it("answers one key's view with enabled, status and previous_key_expires_at", async () => {
      const { id, key } = await t.createKeyWithId({ name: 'shown', plan: 'pro' });
      const res = await t.http().get(`${KEYS}/${id}`).set(admin());
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id,
        name: 'shown',
        plan: 'pro',
        enabled: true,
        status: 'active',
        previous_key_expires_at: null,
      });
      expect(res.text).not.toContain(key);
      expect(res.body).not.toHaveProperty('hash');
    });

    it('shows when the key was last used: at its first call, then at most once a minute', async () => {
      const { id, key } = await t.createKeyWithId({ scope_template: 'standard' });
      const lastUsed = async () =>
        (await t.http().get(`${KEYS}/${id}`).set(admin())).body.last_used_at as string | null;
      expect(await lastUsed()).toBeNull();
      const start = clock.now();
      const first = start.toISOString();
      expect((await greet(key)).status).toBe(200);
      expect(await lastUsed()).toBe(first);
      clock.set(new Date(clock.now().getTime() + 30_000));
      expect((await greet(key)).status).toBe(200);
      expect(await lastUsed()).toBe(first);
      clock.set(new Date(clock.now().getTime() + 31_000));
      const later = clock.now().toISOString();
      expect((await greet(key)).status).toBe(200);
      expect(await lastUsed()).toBe(later);
      clock.set(start);
    });

    it('answers an unknown id 404 and a caller without admin:read 403', async () => {
      const res = await t.http().get(`${KEYS}/key_0000000000000000`).set(admin());
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'API key not found' });
      const { id, key } = await t.createKeyWithId({ scope_template: 'standard' });
      const refused = await t.http().get(`${KEYS}/${id}`).set(bearer(key));
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(FORBIDDEN);
    });
  });

  describe('PATCH /api/v1/auth/api-keys/<id>', () => {
    it('changes the fields given and answers the view; null limits fall back to the plan', async () => {
      const { id } = await t.createKeyWithId({ name: 'before', daily_limit: 5 });
      const res = await patch(id, {
        name: 'after',
        scopes: ['services:read'],
        plan: 'pro',
        rate_limit: 7,
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id,
        name: 'after',
        scopes: ['services:read'],
        plan: 'pro',
        daily_limit: 5,
        rate_limit: 7,
      });
      const cleared = await patch(id, { daily_limit: null });
      expect(cleared.body).toMatchObject({ daily_limit: null, rate_limit: 7 });
    });

    it('answers {} with 200 and changes nothing', async () => {
      const { id } = await t.createKeyWithId({ name: 'same' });
      const before = await t.http().get(`${KEYS}/${id}`).set(admin());
      const res = await patch(id, {});
      expect(res.status).toBe(200);
      expect(res.body).toEqual(before.body);
    });

    it('disables a key (401 Invalid API key, a failed authentication) and enables it again', async () => {
      const { id, key } = await t.createKeyWithId({ scope_template: 'standard' });
      expect((await greet(key)).status).toBe(200);
      const off = await patch(id, { enabled: false });
      expect(off.body).toMatchObject({ enabled: false, status: 'disabled' });
      const refused = await greet(key);
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual(INVALID);
      expect(refused.headers['www-authenticate']).toBe('Bearer');
      expect((await patch(id, { enabled: true })).body).toMatchObject({ status: 'active' });
      expect((await greet(key)).status).toBe(200);
    });

    it('lets a key disable itself', async () => {
      const { id, key } = await t.createKeyWithId({ scope_template: 'admin', plan: 'unlimited' });
      expect((await patch(id, { enabled: false }, key)).status).toBe(200);
      expect((await t.http().get('/api/v1/auth/me').set(bearer(key))).status).toBe(401);
    });

    it('refuses invalid fields with 400, an unknown key with 404, a revoked one with 409', async () => {
      const { id } = await t.createKeyWithId();
      const bad = await patch(id, { enabled: 'no', rate_limit: 0, colour: 'red' });
      expect(bad.status).toBe(400);
      expect((bad.body as { detail: { type: string }[] }).detail.map((d) => d.type)).toEqual([
        'greater_than_equal',
        'bool_type',
        'extra_forbidden',
      ]);
      const plan = await patch(id, { plan: 'gold' });
      expect(plan.status).toBe(400);
      expect(plan.body.detail[0]).toMatchObject({ loc: ['body', 'plan'], type: 'value_error' });
      const scope = await patch(id, { scopes: ['root'] });
      expect(scope.body.detail[0]).toMatchObject({ loc: ['body', 'scopes', 0] });
      expect((await patch('key_0000000000000000', { name: 'x' })).status).toBe(404);
      await t.http().delete(`${KEYS}/${id}`).set(admin()).expect(200);
      const revoked = await patch(id, { name: 'x' });
      expect(revoked.status).toBe(409);
      expect(revoked.body).toEqual({ detail: 'API key is revoked' });
    });
  });

  describe('no escalation', () => {
    let manager: string;
    let weak: { id: string; key: string };
    let strong: { id: string; key: string };

    beforeAll(async () => {
      manager = await t.createKey({ scopes: ['admin:*', 'services:*'], plan: 'pro' });
      weak = await t.createKeyWithId({ scope_template: 'standard', plan: 'free' });
      strong = await t.createKeyWithId({ scope_template: 'admin', plan: 'free' });
    });

    it.each([
      ['a scope the caller lacks', { scopes: ['*'] }],
      ['a more generous plan', { plan: 'unlimited' }],
      ['a daily limit above its own', { daily_limit: 10_001 }],
      ['a rate limit above its own', { rate_limit: 51 }],
    ])('refuses a patch giving %s', async (_, body) => {
      const res = await patch(weak.id, body, manager);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    });

    it('allows a patch within its own limits, comparing only the fields set', async () => {
      const res = await patch(weak.id, { plan: 'pro', daily_limit: 10_000 }, manager);
      expect(res.status).toBe(200);
    });

    it('refuses to patch, rotate or revoke a key holding a scope the caller lacks', async () => {
      for (const res of [
        await patch(strong.id, { name: 'mine' }, manager),
        await rotate(strong.id, {}, manager),
        await t.http().delete(`${KEYS}/${strong.id}`).set(bearer(manager)),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual(FORBIDDEN);
      }
      expect((await greet(strong.key)).status).toBe(200);
    });

    it('refuses PATCH and rotate without admin:write', async () => {
      const reader = await t.createKey({ scopes: ['admin:read'] });
      expect((await patch(weak.id, { name: 'x' }, reader)).status).toBe(403);
      expect((await rotate(weak.id, {}, reader)).status).toBe(403);
    });
  });

  describe('POST /api/v1/auth/api-keys/<id>/rotate', () => {
    it('answers 201 with a new key, Location and no-store; same id, settings and usage', async () => {
      const { id, key } = await t.createKeyWithId({ scope_template: 'standard', daily_limit: 9 });
      await greet(key).expect(200);
      await greet(key).expect(200);
      const res = await rotate(id);
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(`${KEYS}/${id}`);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toMatchObject({
        id,
        daily_limit: 9,
        scopes: ['services:read', 'services:execute'],
        status: 'active',
        previous_key_expires_at: null,
        key: expect.stringMatching(/^sk_[0-9a-f]{64}$/),
      });
      expect(res.body.key).not.toBe(key);
      expect(res.body.prefix).toBe((res.body.key as string).slice(0, 11));
      // Without a grace the old secret stops at once; the usage goes on with the new one.
      expect((await greet(key)).body).toEqual(INVALID);
      const usage = await t
        .http()
        .get('/api/v1/usage')
        .set(bearer(res.body.key as string));
      expect(usage.body).toMatchObject({ used: 2, daily_limit: 9, remaining: 7 });
      const third = await greet(res.body.key as string);
      expect(third.headers['x-quota-used']).toBe('3');
    });

    it('keeps the old secret through the grace, then refuses it (injected clock)', async () => {
      const { id, key } = await t.createKeyWithId({ scope_template: 'standard' });
      const res = await rotate(id, { grace_seconds: 600 });
      expect(res.body.previous_key_expires_at).toBe('2031-05-06T10:10:00.000Z');
      const fresh = res.body.key as string;
      expect((await greet(key)).status).toBe(200);
      expect((await greet(fresh)).status).toBe(200);
      const start = clock.now();
      clock.set(new Date(start.getTime() + 599_000));
      expect((await greet(key)).status).toBe(200);
      clock.set(new Date(start.getTime() + 600_000));
      const refused = await greet(key);
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual(INVALID);
      expect((await greet(fresh)).status).toBe(200);
      const view = await t.http().get(`${KEYS}/${id}`).set(admin());
      expect(view.body.previous_key_expires_at).toBeNull();
      clock.set(start);
    });

    it('keeps one previous secret at a time: a second rotation ends the first grace', async () => {
      const { id, key: first } = await t.createKeyWithId({ scope_template: 'standard' });
      const second = (await rotate(id, { grace_seconds: 3600 })).body.key as string;
      const third = (await rotate(id, { grace_seconds: 3600 })).body.key as string;
      expect((await greet(first)).status).toBe(401);
      expect((await greet(second)).status).toBe(200);
      expect((await greet(third)).status).toBe(200);
    });

    it('refuses a bad grace (400), an unknown key (404), a revoked key (409)', async () => {
      const { id } = await t.createKeyWithId();
      for (const [grace, type] of [
        [-1, 'greater_than_equal'],
        [604_801, 'less_than_equal'],
        ['60', 'int_type'],
      ] as const) {
        const res = await rotate(id, { grace_seconds: grace });
        expect(res.status).toBe(400);
        expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'grace_seconds'], type });
      }
      expect((await rotate(id, { grace_seconds: 604_800 })).status).toBe(201);
      const unknown = await rotate('key_0000000000000000');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ detail: 'API key not found' });
      await t.http().delete(`${KEYS}/${id}`).set(admin()).expect(200);
      const revoked = await rotate(id);
      expect(revoked.status).toBe(409);
      expect(revoked.body).toEqual({ detail: 'API key is revoked' });
    });
  });

  it('answers the create 201 with Location and no-store', async () => {
    const res = await t.http().post(KEYS).set(admin()).send({ name: 'located' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${KEYS}/${res.body.id}`);
    expect(res.headers['cache-control']).toBe('no-store');
    const shown = await t.http().get(res.headers.location).set(admin());
    expect(shown.body.id).toBe(res.body.id);
  });
});
