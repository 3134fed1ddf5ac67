import { hash } from 'node:crypto';
import { Clock, utcDay } from '../../src/kernel/common/clock';
import { PrincipalUpkeep } from '../../src/oauth/principals.upkeep';
import { PrincipalStore } from '../../src/subjects/principal.store';
import { UsageStore } from '../../src/limits/usage.store';
import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';
import { TokenIssuer } from '../support/oauth/token-issuer';
import { freePort, usingSharedRedis } from '../support/redis';
import { WebhookReceiver } from '../support/webhook-receiver';

const PRINCIPALS = '/api/v1/auth/principals';
const FORBIDDEN = { detail: 'Insufficient permissions for this operation.' };

interface Check {
  name: string;
  status: string;
  message: string;
}

/** The id versions before this one gave a principal: a hash of issuer, client and subject. */
function perClientId(issuer: string, clientId: string | null, subject: string): string {
  return `prn_${hash('sha256', JSON.stringify([issuer, clientId ?? '', subject]), 'hex').slice(0, 32)}`;
}

/**
 * A principal is one issuer and one subject (docs/oauth.md#principals-whom-a-token-speaks-for):
 * one quota whatever its clients, a bounded number of them, idle ones purged, one deleted on
 * request, and the records older versions made per client merged at start-up.
 */
describe('OAuth principals: identity, bounds, upkeep (e2e)', () => {
  let issuer: TokenIssuer;
  let base: string;
  const clock = new FakeClock(new Date('2031-03-10T12:00:00.000Z'));

  beforeAll(async () => {
    issuer = await TokenIssuer.start();
    base = `http://127.0.0.1:${await freePort()}`;
  });
  afterAll(() => issuer?.stop());
  beforeEach(() => clock.set(new Date('2031-03-10T12:00:00.000Z')));

  const start = (env: Record<string, string> = {}, dataDir = tempDataDir()) =>
    startApp({
      dataDir,
      env: { PUBLIC_URL: base, OAUTH_ISSUERS: issuer.issuer, ...env },
      configure: (builder) => builder.overrideProvider(Clock).useValue(clock),
    });
  const token = (sub: string, claims: Record<string, unknown> = {}) =>
    issuer.sign({ sub, aud: base, scope: 'services:execute', ...claims });
  const me = (t: TestApp, credential: string) =>
    t.http().get('/api/v1/auth/me').set(bearer(credential));
  const greet = (t: TestApp, credential: string) =>
    t.http().post('/api/v1/services/greet').set(bearer(credential)).send({ name: 'Ada' });
  const view = (t: TestApp, id: string) =>
    t.http().get(`${PRINCIPALS}/${id}`).set(bearer(t.adminKey));
  const doctorCheck = async (t: TestApp) => {
    const res = await t.http().post('/api/v1/services/doctor').set(bearer(t.adminKey)).send({});
    return (res.body.checks as Check[]).find((check) => check.name === 'oauth_principals');
  };

  describe('one subject, one principal', () => {
    let t: TestApp;
    beforeAll(async () => {
      // The access log line of each request: verbose logging.
      t = await start({ APP__LOGGING__VERBOSE: 'true' });
    });
    afterAll(() => t?.close());

    it('gives one subject through several clients one id and one quota', async () => {
      const apps = await Promise.all(
        ['app-1', 'app-2', 'app-3'].map((client) => token('ada', { client_id: client })),
      );
      const ids = await Promise.all(apps.map(async (c) => (await me(t, c)).body.principal_id));
      expect(new Set(ids).size).toBe(1);
      expect((await me(t, apps[1])).body.client_id).toBe('app-2');
      const id = ids[0] as string;
      await t
        .http()
        .patch(`${PRINCIPALS}/${id}`)
        .set(bearer(t.adminKey))
        .send({ daily_limit: 3, rate_limit: 1000 })
        .expect(200);
      const statuses = [];
      for (const credential of [...apps, apps[0]])
        statuses.push((await greet(t, credential)).status);
      expect(statuses).toEqual([200, 200, 200, 402]);
      const usage = await t.http().get(`${PRINCIPALS}/${id}/usage`).set(bearer(t.adminKey));
      expect([usage.body.used, usage.body.daily_limit]).toEqual([3, 3]);
    });

    it('records the client of each call: the access log, the audit, the view', async () => {
      const operator = await token('operator', {
        client_id: 'console',
        scope: 'admin:read admin:write',
      });
      const id = (await me(t, operator)).body.principal_id as string;
      const key = await t
        .http()
        .post('/api/v1/auth/api-keys')
        .set(bearer(operator))
        .send({ name: 'by-console', scopes: ['admin:read'] });
      expect(key.status).toBe(201);
      const audit = await t.http().get('/api/v1/audit').set(bearer(t.adminKey));
      const entry = (audit.body.entries as Record<string, unknown>[]).find(
        (e) => e.target === key.body.id,
      );
      expect(entry).toMatchObject({
        actor_principal_id: id,
        details: expect.objectContaining({ client_id: 'console' }),
      });
      const logged = t.logs
        .records()
        .filter((line) => line.principal_id === id && line.client_id === 'console');
      expect(logged.length).toBeGreaterThan(0);
      expect((await view(t, id)).body.client_id).toBe('console');
    });
  });

  it("announces a principal's change to the webhooks subscribed: principal.updated, never a token", async () => {
    const receiver = await WebhookReceiver.start();
    const t = await start({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20' });
    try {
      await t
        .http()
        .post('/api/v1/webhooks')
        .set(bearer(t.adminKey))
        .send({ url: receiver.url, events: ['principal.updated'] })
        .expect(201);
      const credential = await token('grace', { client_id: 'agent' });
      const id = (await me(t, credential)).body.principal_id as string;
      await t
        .http()
        .patch(`${PRINCIPALS}/${id}`)
        .set(bearer(t.adminKey))
        .send({ plan: 'pro', enabled: false })
        .expect(200);
      const [hook] = await receiver.waitFor(1);
      // Signed at the test's clock (2031): verified by the webhooks' own e2e, read here.
      const event = JSON.parse(hook.body) as { type: string; data: Record<string, unknown> };
      expect(event).toMatchObject({
        type: 'principal.updated',
        data: {
          principal: { id, issuer: issuer.issuer, subject: 'grace', plan: 'pro', enabled: false },
          changes: { plan: { from: null, to: 'pro' }, enabled: { from: true, to: false } },
        },
      });
      expect(hook.body).not.toContain(credential);
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  describe('bounded', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await start({ OAUTH_MAX_PRINCIPALS: '5' });
    });
    afterAll(() => t?.close());

    it('refuses a new subject past OAUTH_MAX_PRINCIPALS, keeps serving the others', async () => {
      const subjects = ['s1', 's2', 's3', 's4'];
      for (const sub of subjects) expect((await me(t, await token(sub))).status).toBe(200);
      expect(await doctorCheck(t)).toMatchObject({
        status: 'warn',
        message: expect.stringContaining('4 of 5 principals (80 %)'),
      });
      expect((await me(t, await token('s5'))).status).toBe(200);
      expect((await doctorCheck(t))?.status).toBe('fail');

      const refused = await greet(t, await token('s6'));
      expect([refused.status, refused.body]).toEqual([
        403,
        { detail: 'This service accepts no new principal: the limit of 5 is reached.' },
      ]);
      // An existing one, even through a client not seen before, keeps working.
      expect((await greet(t, await token('s1', { client_id: 'new-app' }))).status).toBe(200);
      const list = await t.http().get(PRINCIPALS).set(bearer(t.adminKey));
      expect(list.body).toHaveLength(5);

      // Room again once one is deleted.
      const gone = (await me(t, await token('s2'))).body.principal_id as string;
      await t.http().delete(`${PRINCIPALS}/${gone}`).set(bearer(t.adminKey)).expect(200);
      expect((await greet(t, await token('s6'))).status).toBe(200);
    });
  });

  describe('DELETE /api/v1/auth/principals/<id>', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await start();
    });
    afterAll(() => t?.close());
    const remove = (id: string, caller: string) =>
      t.http().delete(`${PRINCIPALS}/${id}`).set(bearer(caller));

    it('deletes one, audited; its next token makes it anew', async () => {
      const credential = await token('leaving');
      const id = (await me(t, credential)).body.principal_id as string;
      await greet(t, credential).expect(200);
      await t.http().patch(`${PRINCIPALS}/${id}`).set(bearer(t.adminKey)).send({ rate_limit: 9 });
      const res = await remove(id, t.adminKey);
      expect([res.status, res.body]).toEqual([200, { id, deleted: true }]);
      expect((await view(t, id)).status).toBe(404);
      const again = await remove(id, t.adminKey);
      expect([again.status, again.body]).toEqual([404, { detail: 'Principal not found' }]);
      const audit = await t.http().get('/api/v1/audit').set(bearer(t.adminKey));
      expect(audit.body.entries[0]).toMatchObject({
        action: 'principal.delete',
        target: id,
        details: { issuer: issuer.issuer, subject: 'leaving' },
      });
      // Back as new: the same id, no settings, no usage.
      clock.set(new Date('2031-03-10T12:05:00.000Z'));
      expect((await greet(t, await token('leaving'))).status).toBe(200);
      const back = await view(t, id);
      expect(back.body).toMatchObject({
        rate_limit: null,
        enabled: true,
        first_seen_at: '2031-03-10T12:05:00.000Z',
      });
      const usage = await t.http().get(`${PRINCIPALS}/${id}/usage`).set(bearer(t.adminKey));
      expect(usage.body.used).toBe(1);
    });

    it('refuses a caller that does not hold what the principal holds, and a disabled one', async () => {
      const lesser = await t.createKey({ scopes: ['admin:read', 'admin:write'], plan: 'free' });
      const root = (await me(t, await token('root', { scope: '*' }))).body.principal_id as string;
      const refused = await remove(root, lesser);
      expect([refused.status, refused.body]).toEqual([403, FORBIDDEN]);
      expect((await view(t, root)).status).toBe(200);
      const reader = (await me(t, await token('reader', { scope: 'admin:read' }))).body
        .principal_id as string;
      expect((await remove(reader, lesser)).status).toBe(200);

      const blocked = (await me(t, await token('blocked'))).body.principal_id as string;
      await t
        .http()
        .patch(`${PRINCIPALS}/${blocked}`)
        .set(bearer(t.adminKey))
        .send({ enabled: false });
      const disabled = await remove(blocked, t.adminKey);
      expect(disabled.status).toBe(409);
      expect(disabled.body.detail).toMatch(/^Principal is disabled/);
      expect((await me(t, await token('blocked'))).status).toBe(401);
      expect((await remove('prn_nope', t.adminKey)).status).toBe(404);
    });
  });

  describe('idle purge', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await start({ OAUTH_PRINCIPAL_IDLE_DAYS: '2' });
    });
    afterAll(() => t?.close());

    it('purges principals unseen that long with their history, not disabled or set ones', async () => {
      const ids: Record<string, string> = {};
      for (const sub of ['idle', 'limited', 'disabled', 'recent']) {
        const credential = await token(sub);
        ids[sub] = (await me(t, credential)).body.principal_id as string;
        await greet(t, credential).expect(200);
      }
      const admin = (id: string, body: object) =>
        t.http().patch(`${PRINCIPALS}/${id}`).set(bearer(t.adminKey)).send(body).expect(200);
      await admin(ids.limited, { daily_limit: 50 });
      await admin(ids.disabled, { enabled: false });
      const upkeep = t.app.get(PrincipalUpkeep);

      clock.set(new Date('2031-03-12T11:00:00.000Z'));
      expect(await upkeep.purgeIdle()).toBe(0);
      await me(t, await token('recent'));
      clock.set(new Date('2031-03-13T12:00:00.000Z'));
      expect(await upkeep.purgeIdle()).toBe(1);
      expect((await view(t, ids.idle)).status).toBe(404);
      for (const kept of [ids.limited, ids.disabled, ids.recent]) {
        expect((await view(t, kept)).status).toBe(200);
      }
      const usage = t.app.get(UsageStore);
      expect(await usage.getUsage(ids.idle, '2031-03-10')).toBe(0);
      expect(await usage.getUsage(ids.limited, '2031-03-10')).toBe(1);
      // It comes back as new on its next token.
      expect((await me(t, await token('idle'))).body.principal_id).toBe(ids.idle);
      expect((await view(t, ids.idle)).body.first_seen_at).toBe('2031-03-13T12:00:00.000Z');
    });
  });

  describe('records of one subject under several clients, from an older version', () => {
    it('merges them at start-up: disabled if any was, strictest limits, usage summed', async () => {
      const dataDir = tempDataDir();
      const older = await start({}, dataDir);
      const store = older.app.get(PrincipalStore);
      const usage = older.app.get(UsageStore);
      const day = utcDay(clock.now());
      const records = [
        {
          client: 'app-1',
          seen: '2031-03-01T00:00:00.000Z',
          credits: 4,
          limits: { daily_limit: 500, rate_limit: 7 },
        },
        {
          client: 'app-2',
          seen: '2031-03-09T00:00:00.000Z',
          credits: 5,
          limits: { daily_limit: 80 },
        },
        { client: null, seen: '2031-03-05T00:00:00.000Z', credits: 6, limits: { enabled: false } },
      ];
      for (const { client, seen, credits, limits } of records) {
        const id = perClientId(issuer.issuer, client, 'merged');
        await store.ensurePrincipal({
          id,
          issuer: issuer.issuer,
          subject: 'merged',
          client_id: client,
          first_seen_at: seen,
          last_seen_at: seen,
        });
        await store.updatePrincipal(id, limits);
        const charge = { day, dailyLimit: null, month: day.slice(0, 7), monthlyLimit: null };
        await usage.consumeQuota(id, { ...charge, cost: credits, tool: 'greet' });
      }
      // A subject alone under its per-client id is moved to its own id as well.
      const alone = perClientId(issuer.issuer, 'app-9', 'alone');
      await store.ensurePrincipal({
        id: alone,
        issuer: issuer.issuer,
        subject: 'alone',
        client_id: 'app-9',
        first_seen_at: '2031-03-02T00:00:00.000Z',
        last_seen_at: '2031-03-02T00:00:00.000Z',
      });
      await older.close();

      // On Redis, two instances of the deployment start at once: one merges, the other waits.
      const [t, second] = await Promise.all([
        start({}, dataDir),
        usingSharedRedis() ? start({}, dataDir) : undefined,
      ]);
      try {
        const list = await t.http().get(PRINCIPALS).set(bearer(t.adminKey));
        expect(list.body).toHaveLength(2);
        const merged = (list.body as Record<string, unknown>[]).find((p) => p.subject === 'merged');
        expect(merged).toMatchObject({
          client_id: 'app-2',
          daily_limit: 80,
          rate_limit: 7,
          enabled: false,
          scopes: null,
          first_seen_at: '2031-03-01T00:00:00.000Z',
          last_seen_at: '2031-03-09T00:00:00.000Z',
        });
        const id = merged?.id as string;
        expect((await me(t, await token('merged', { client_id: 'app-1' }))).status).toBe(401);
        const used = await t.http().get(`${PRINCIPALS}/${id}/usage`).set(bearer(t.adminKey));
        expect(used.body.used).toBe(15);
        expect(used.body.history[0].by_tool.greet).toMatchObject({ calls: 3, credits: 15 });
        for (const { client } of records) {
          const old = perClientId(issuer.issuer, client, 'merged');
          expect((await view(t, old)).status).toBe(404);
        }
        const moved = (list.body as Record<string, unknown>[]).find((p) => p.subject === 'alone');
        expect(moved?.id).not.toBe(alone);
        expect((await me(t, await token('alone'))).body.principal_id).toBe(moved?.id);
        if (second) {
          const seen = await second.http().get(`${PRINCIPALS}/${id}/usage`).set(bearer(t.adminKey));
          expect(seen.body.used).toBe(15);
        }
      } finally {
        await Promise.all([t.close(), second?.close()]);
      }
    });
  });
});
