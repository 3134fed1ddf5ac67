import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { writeConfigFile } from '../support/config';
import { TokenIssuer } from '../support/oauth/token-issuer';
import { freePort } from '../support/redis';

const FORBIDDEN = { detail: 'Insufficient permissions for this operation.' };
const KEYS = '/api/v1/auth/api-keys';
const PRINCIPALS = '/api/v1/auth/principals';

/**
 * The no-escalation rule over what a grant costs and over principals: a plan on which a tool costs
 * less than on the caller's own is more than the caller holds, and a principal holds the scopes
 * its tokens have carried (docs/keys-and-limits.md#no-escalation).
 */
describe('No escalation: prices and principals (e2e)', () => {
  let issuer: TokenIssuer;
  let t: TestApp;
  let base: string;
  /** A `free` key that may manage keys and principals: the lesser admin of the findings. */
  let lesser: string;

  beforeAll(async () => {
    issuer = await TokenIssuer.start();
    base = `http://127.0.0.1:${await freePort()}`;
    const dataDir = tempDataDir();
    // free prices doctor at 50; trial is cheaper on every limit than free, but doctor costs 1 on it;
    // dear prices greet above the default plan's 1, with free's limits.
    const config = writeConfigFile(
      dataDir,
      [
        'limits:',
        '  plans:',
        '    free:',
        '      tool_costs: {doctor: 50}',
        '    trial: {daily_limit: 60, rate_limit: 5}',
        '    dear: {daily_limit: 100, rate_limit: 5, tool_costs: {doctor: 50, greet: 2}}',
        '',
      ].join('\n'),
    );
    t = await startApp({
      dataDir,
      env: { CONFIG_FILE: config, PUBLIC_URL: base, OAUTH_ISSUERS: issuer.issuer },
    });
    // Its own rate limit: the tests' requests, not the rule, must decide.
    lesser = await t.createKey({
      scopes: ['admin:read', 'admin:write'],
      plan: 'free',
      rate_limit: 1000,
    });
  });

  afterAll(async () => {
    await t?.close();
    await issuer?.stop();
  });

  const create = (caller: string, body: Record<string, unknown>) =>
    t
      .http()
      .post(KEYS)
      .set(bearer(caller))
      .send({ name: 'granted', scopes: ['admin:read'], ...body });
  const patchKey = (caller: string, id: string, body: Record<string, unknown>) =>
    t.http().patch(`${KEYS}/${id}`).set(bearer(caller)).send(body);
  const patchPrincipal = (caller: string, id: string, body: Record<string, unknown>) =>
    t.http().patch(`${PRINCIPALS}/${id}`).set(bearer(caller)).send(body);
  /** The principal a token of `sub` speaks for, seen once with `scope` (none: no scope claim). */
  const principal = async (sub: string, scope?: string) => {
    const token = await issuer.sign({ sub, aud: base, ...(scope ? { scope } : {}) });
    const me = await t.http().get('/api/v1/auth/me').set(bearer(token));
    expect(me.status).toBe(200);
    return { id: me.body.principal_id as string, token };
  };

  describe('prices', () => {
    it("refuses a key on a plan where a tool costs less than on the caller's own", async () => {
      const trial = await create(lesser, { plan: 'trial' });
      expect([trial.status, trial.body]).toEqual([403, FORBIDDEN]);
      // The same prices as its own: granted.
      expect((await create(lesser, { plan: 'free' })).status).toBe(201);
      // A caller with neither a daily nor a monthly limit may grant any plan.
      expect((await create(t.adminKey, { plan: 'trial' })).status).toBe(201);
    });

    it('compares the default plan when a create names none', async () => {
      const dear = await t.createKey({ scopes: ['admin:read', 'admin:write'], plan: 'dear' });
      const unnamed = await create(dear, {});
      expect([unnamed.status, unnamed.body]).toEqual([403, FORBIDDEN]);
      expect((await create(dear, { plan: 'dear' })).status).toBe(201);
    });

    it('refuses a PATCH to a cheaper plan, and acting on a key whose plan is cheaper', async () => {
      const free = await t.createKeyWithId({ scopes: ['admin:read'], plan: 'free' });
      const cheaper = await patchKey(lesser, free.id, { plan: 'trial' });
      expect([cheaper.status, cheaper.body]).toEqual([403, FORBIDDEN]);
      expect((await patchKey(lesser, free.id, { name: 'renamed' })).status).toBe(200);

      const trial = await t.createKeyWithId({ scopes: ['admin:read'], plan: 'trial' });
      for (const res of [
        await patchKey(lesser, trial.id, { enabled: false }),
        await t.http().post(`${KEYS}/${trial.id}/rotate`).set(bearer(lesser)).send({}),
        await t.http().delete(`${KEYS}/${trial.id}`).set(bearer(lesser)),
      ]) {
        expect([res.status, res.body]).toEqual([403, FORBIDDEN]);
      }
      // The same actions on a key of its own prices succeed.
      expect((await patchKey(lesser, free.id, { enabled: false })).status).toBe(200);
      expect(
        (await t.http().post(`${KEYS}/${free.id}/rotate`).set(bearer(lesser)).send({})).status,
      ).toBe(201);
      expect((await t.http().delete(`${KEYS}/${free.id}`).set(bearer(lesser))).status).toBe(200);
    });

    it('refuses giving a principal a cheaper plan, and changing one on a cheaper plan', async () => {
      const { id } = await principal('priced', 'admin:read');
      const cheaper = await patchPrincipal(lesser, id, { plan: 'trial' });
      expect([cheaper.status, cheaper.body]).toEqual([403, FORBIDDEN]);
      expect((await patchPrincipal(lesser, id, { daily_limit: 50 })).status).toBe(200);
      expect((await patchPrincipal(t.adminKey, id, { plan: 'trial' })).status).toBe(200);
      const onTrial = await patchPrincipal(lesser, id, { daily_limit: 10 });
      expect([onTrial.status, onTrial.body]).toEqual([403, FORBIDDEN]);
    });
  });

  describe('principals', () => {
    it('refuses a lesser admin disabling a principal whose tokens carry *', async () => {
      const root = await principal('root', '*');
      const refused = await patchPrincipal(lesser, root.id, { enabled: false });
      expect([refused.status, refused.body]).toEqual([403, FORBIDDEN]);
      expect((await t.http().get('/api/v1/auth/me').set(bearer(root.token))).status).toBe(200);
      // A principal within the lesser admin's scopes and limits: it may.
      const reader = await principal('reader', 'admin:read');
      const done = await patchPrincipal(lesser, reader.id, { enabled: false });
      expect([done.status, done.body.enabled]).toEqual([200, false]);
      expect((await patchPrincipal(lesser, reader.id, { enabled: true })).status).toBe(200);
      // A full admin may disable the first.
      const full = await patchPrincipal(t.adminKey, root.id, { enabled: false });
      expect([full.status, full.body.enabled]).toEqual([200, false]);
    });

    it('keeps the union of the scopes its tokens carried, written at once', async () => {
      const first = await principal('grows', 'admin:read');
      expect((await patchPrincipal(lesser, first.id, { daily_limit: 20 })).status).toBe(200);
      // Within the same minute, a token of the same subject with a scope the caller lacks.
      const later = await principal('grows', 'services:execute');
      expect(later.id).toBe(first.id);
      const view = await t.http().get(`${PRINCIPALS}/${first.id}`).set(bearer(t.adminKey));
      expect(view.body.scopes).toEqual(['admin:read', 'services:execute']);
      const refused = await patchPrincipal(lesser, first.id, { daily_limit: 10 });
      expect([refused.status, refused.body]).toEqual([403, FORBIDDEN]);
      expect((await patchPrincipal(t.adminKey, first.id, { daily_limit: 10 })).status).toBe(200);
    });

    it('counts a principal whose tokens carried no scope yet as holding every scope', async () => {
      const bare = await principal('bare');
      const view = await t.http().get(`${PRINCIPALS}/${bare.id}`).set(bearer(t.adminKey));
      expect(view.body.scopes).toBeNull();
      const refused = await patchPrincipal(lesser, bare.id, { enabled: false });
      expect([refused.status, refused.body]).toEqual([403, FORBIDDEN]);
      expect((await patchPrincipal(t.adminKey, bare.id, { enabled: false })).status).toBe(200);
    });
  });
});
