import { Clock } from '../../src/kernel/common/clock';
import { bearer, startApp, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';
import { TokenIssuer } from '../support/oauth/token-issuer';
import { freePort } from '../support/redis';

const RUNS = '/api/v1/runs';
const FORBIDDEN = { detail: 'Insufficient permissions for this operation.' };
const ENDED = { detail: 'Run has ended.' };

/**
 * A run never holds more than its parent can still do (docs/runs-and-ledger.md#runs-of-principals):
 * a principal's run ends no later than the token that made it, holds no more than that token, and
 * is given more time only by its principal, with a current token (clamped again); a run's
 * `/auth/me` names the run and its parent's kind and id only. Tokens come from a loopback issuer
 * (TokenIssuer) whose `exp` the test writes; the service's clock is the test's, moved past an
 * expiry instead of waiting for it.
 */
describe('runs of principals: bound to their token (e2e)', () => {
  let issuer: TokenIssuer;
  let app: TestApp;
  let base: string;
  const clock = new FakeClock(new Date());

  beforeAll(async () => {
    issuer = await TokenIssuer.start();
    base = `http://127.0.0.1:${await freePort()}`;
    app = await startApp({
      // pro: a burst the calls of a test, on a clock that stands, never reach.
      env: { PUBLIC_URL: base, OAUTH_ISSUERS: issuer.issuer, OAUTH_DEFAULT_PLAN: 'pro' },
      configure: (builder) => builder.overrideProvider(Clock).useValue(clock),
    });
  });
  afterAll(async () => {
    await app?.close();
    await issuer?.stop();
  });
  beforeEach(() => clock.set(new Date()));

  /** A token of `sub` with `scope`, expiring `seconds` from now (real time: the verifier's). */
  const token = (sub: string, seconds: number, scope = 'services:read services:execute') =>
    issuer.sign({ sub, aud: base, scope, exp: Math.floor(Date.now() / 1000) + seconds });
  const expOf = (credential: string) =>
    new Date(
      (JSON.parse(Buffer.from(credential.split('.')[1], 'base64url').toString()) as { exp: number })
        .exp * 1000,
    ).toISOString();
  const call = (credential: string, tool = 'greet', body: object = { name: 'Ada' }) =>
    app.http().post(`/api/v1/services/${tool}`).set(bearer(credential)).send(body);
  const newRun = async (credential: string, body: Record<string, unknown> = { budget: 5 }) => {
    const res = await app.http().post(RUNS).set(bearer(credential)).send(body);
    expect([res.status, res.body.detail]).toEqual([201, undefined]);
    return res.body as { id: string; token: string; expires_at: string; scopes: string[] };
  };
  const extend = (credential: string, id: string, body: Record<string, unknown>) =>
    app.http().patch(`${RUNS}/${id}`).set(bearer(credential)).send(body);
  const view = async (id: string) =>
    (await app.http().get(`${RUNS}/${id}`).set(bearer(app.adminKey)).expect(200)).body as Record<
      string,
      unknown
    >;
  const plus = (seconds: number) => new Date(clock.nowMs() + seconds * 1000).toISOString();

  it("ends a principal's run with the token that made it: the view's expires_at, then refused", async () => {
    const access = await token('ada', 600);
    const run = await newRun(access);
    expect(run.expires_at).toBe(expOf(access));
    expect((await view(run.id)).expires_at).toBe(expOf(access));
    // A shorter ttl_seconds is kept: the clamp only cuts.
    expect((await newRun(access, { budget: 1, ttl_seconds: 120 })).expires_at).toBe(plus(120));
    expect((await call(run.token)).status).toBe(200);

    clock.set(new Date(Date.parse(run.expires_at)));
    expect((await call(run.token)).body).toEqual(ENDED);
    expect(await view(run.id)).toMatchObject({ status: 'expired', ended_reason: 'expired' });
  });

  it('refuses a run from a token already past its exp (within the leeway it is still accepted for)', async () => {
    const access = await token('bea', -30);
    expect((await app.http().get('/api/v1/auth/me').set(bearer(access))).status).toBe(200);
    const refused = await app.http().post(RUNS).set(bearer(access)).send({ budget: 5 });
    expect([refused.status, refused.body]).toEqual([
      403,
      { detail: 'This token has expired: a run cannot outlive it.' },
    ]);
    const listed = await app.http().get(RUNS).set(bearer(access)).expect(200);
    expect(listed.body.runs).toEqual([]);
  });

  it("extends a principal's run by PATCH with a current token: clamped to it again, within its scopes", async () => {
    const first = await token('cy', 300);
    const run = await newRun(first);
    expect(run.scopes).toEqual(['services:read', 'services:execute']);
    // A later token of the subject holding only greet: the run's time is that token's now, and
    // what it may do is what both allow.
    const later = await token('cy', 900, 'services:execute:greet');
    const extended = await extend(later, run.id, { ttl_seconds: 7200 });
    expect([extended.status, extended.body.detail]).toEqual([200, undefined]);
    expect(extended.body).toMatchObject({
      expires_at: expOf(later),
      scopes: ['services:execute:greet'],
      status: 'active',
    });
    expect((await call(run.token)).status).toBe(200);
    const outside = await call(run.token, 'config_get', { key: 'greeting' });
    expect([outside.status, outside.body]).toEqual([403, FORBIDDEN]);
    // Past the first token's exp the run goes on, up to the later one's.
    clock.set(new Date(Date.parse(expOf(first)) + 1000));
    expect((await call(run.token)).status).toBe(200);
    // A shorter time within the token is kept as asked.
    const shorter = await extend(later, run.id, { ttl_seconds: 60 });
    expect(shorter.body.expires_at).toBe(plus(60));
    const audit = await app.http().get('/api/v1/audit?limit=500').set(bearer(app.adminKey));
    const updates = (audit.body.entries as { action: string; target: string }[]).filter(
      (entry) => entry.target === run.id && entry.action === 'run.updated',
    );
    expect(updates.map((entry) => (entry as { details?: unknown }).details)).toEqual([
      { expires_at: plus(60), scopes: ['services:execute:greet'] },
      { expires_at: expOf(later), scopes: ['services:execute:greet'] },
    ]);
  });

  it("refuses to extend a principal's run but by its principal, with a token holding some of its scopes", async () => {
    const access = await token('dee', 300, 'services:execute:greet');
    const run = await newRun(access);
    const cases: [string, string, Record<string, unknown>, number, unknown][] = [
      [
        'an admin key',
        app.adminKey,
        { ttl_seconds: 600 },
        403,
        { detail: "A principal's run is extended by that principal only, with a current token." },
      ],
      [
        'another principal (admin:write)',
        await token('operator', 300, 'admin:write services:execute'),
        { ttl_seconds: 600 },
        403,
        { detail: "A principal's run is extended by that principal only, with a current token." },
      ],
      ['its run token', run.token, { ttl_seconds: 600 }, 404, { detail: 'Run not found' }],
      [
        'a token holding none of its scopes',
        await token('dee', 900, 'services:execute:config_get'),
        { ttl_seconds: 600 },
        403,
        { detail: "This token holds none of the run's scopes." },
      ],
      [
        'a token holding no tool scope',
        await token('dee', 900, 'services:read'),
        { ttl_seconds: 600 },
        403,
        FORBIDDEN,
      ],
      ['too short', access, { ttl_seconds: 59 }, 400, expect.any(Array)],
      ['too long', access, { ttl_seconds: 604_801 }, 400, expect.any(Array)],
    ];
    for (const [why, credential, body, status, detail] of cases) {
      const res = await extend(credential, run.id, { ...body, label: 'changed' });
      expect({ why, status: res.status, detail: res.body.detail as unknown }).toEqual({
        why,
        status,
        detail: (detail as { detail?: unknown }).detail ?? detail,
      });
    }
    // Nothing changed, the label sent beside included.
    expect(await view(run.id)).toMatchObject({
      expires_at: run.expires_at,
      scopes: ['services:execute:greet'],
      label: null,
    });
  });

  it('gives no more time to a run that has ended (409), and ends an extended run with its principal', async () => {
    const access = await token('eve', 300);
    const ended = await newRun(access);
    await app.http().delete(`${RUNS}/${ended.id}`).set(bearer(access)).expect(200);
    const refused = await extend(access, ended.id, { ttl_seconds: 600 });
    expect([refused.status, refused.body]).toEqual([409, ENDED]);
    expect((await view(ended.id)).expires_at).toBe(ended.expires_at);

    const run = await newRun(access);
    const later = await token('eve', 900);
    await extend(later, run.id, { ttl_seconds: 600 }).expect(200);
    expect((await call(run.token)).status).toBe(200);
    const principal = (await view(run.id)).parent as { id: string };
    await app
      .http()
      .patch(`/api/v1/auth/principals/${principal.id}`)
      .set(bearer(app.adminKey))
      .send({ enabled: false })
      .expect(200);
    expect((await call(run.token)).body).toEqual(ENDED);
    expect(await view(run.id)).toMatchObject({ status: 'ended', ended_reason: 'parent_disabled' });
  });

  it("extends a key's run from now by its key or an admin, unclamped", async () => {
    const parent = await app.createKeyWithId({ rate_limit: 1000 });
    const run = await newRun(parent.key, { budget: 2, ttl_seconds: 60 });
    const byKey = await extend(parent.key, run.id, { ttl_seconds: 3600 });
    expect([byKey.status, byKey.body.expires_at]).toEqual([200, plus(3600)]);
    const byAdmin = await extend(app.adminKey, run.id, { ttl_seconds: 604_800 });
    expect([byAdmin.status, byAdmin.body.expires_at]).toEqual([200, plus(604_800)]);
    clock.set(new Date(Date.parse(plus(3600)) + 1000));
    expect((await call(run.token)).status).toBe(200);
  });
});

/** `/auth/me` of a run's token: the run, and its parent's kind and id only (never its name). */
describe("a run's /auth/me (e2e)", () => {
  let issuer: TokenIssuer;
  let app: TestApp;
  let base: string;

  beforeAll(async () => {
    issuer = await TokenIssuer.start();
    base = `http://127.0.0.1:${await freePort()}`;
    app = await startApp({ env: { PUBLIC_URL: base, OAUTH_ISSUERS: issuer.issuer } });
  });
  afterAll(async () => {
    await app?.close();
    await issuer?.stop();
  });

  const me = (credential: string) => app.http().get('/api/v1/auth/me').set(bearer(credential));
  const greet = (credential: string) =>
    app.http().post('/api/v1/services/greet').set(bearer(credential)).send({ name: 'Ada' });

  it('names the run and its parent key by kind and id: its budget, what it spent and may do', async () => {
    const parent = await app.createKeyWithId({ name: 'secret-project-name', rate_limit: 1000 });
    const created = await app
      .http()
      .post(RUNS)
      .set(bearer(parent.key))
      .send({ budget: 3, label: 'triage', scopes: ['services:execute:greet'] })
      .expect(201);
    const run = created.body as { id: string; token: string; expires_at: string };
    await greet(run.token).expect(200);
    const res = await me(run.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      kind: 'run',
      run_id: run.id,
      label: 'triage',
      parent: { kind: 'key', id: parent.id },
      scopes: ['services:execute:greet'],
      budget: 3,
      spent: 1,
      remaining: 2,
      expires_at: run.expires_at,
    });
    expect(res.text).not.toContain('secret-project-name');
    // The key's own /auth/me is as before.
    expect((await me(parent.key)).body).toMatchObject({
      auth_method: 'api_key',
      key_id: parent.id,
      name: 'secret-project-name',
    });
  });

  it("names a principal's run by its principal's id, with the run's time", async () => {
    // A subject with letters no hex id holds, so that finding it in the answer means it leaked.
    const access = await issuer.sign({ sub: 'lovelace', aud: base, scope: 'services:execute' });
    const principal = (await me(access)).body.principal_id as string;
    const created = await app.http().post(RUNS).set(bearer(access)).send({ budget: 2 }).expect(201);
    const res = await me(created.body.token as string);
    expect(res.body).toEqual({
      kind: 'run',
      run_id: created.body.id,
      label: null,
      parent: { kind: 'principal', id: principal },
      scopes: ['services:execute'],
      budget: 2,
      spent: 0,
      remaining: 2,
      expires_at: created.body.expires_at,
    });
    expect(res.text).not.toContain('lovelace');
  });

  it("refuses an ended run's token: 401 Run has ended.", async () => {
    const parent = await app.createKeyWithId();
    const created = await app.http().post(RUNS).set(bearer(parent.key)).send({ budget: 1 });
    await app.http().delete(`${RUNS}/${created.body.id}`).set(bearer(parent.key)).expect(200);
    const res = await me(created.body.token as string);
    expect([res.status, res.body]).toEqual([401, ENDED]);
  });
});
