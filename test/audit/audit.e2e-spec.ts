import { OverrideStore } from '../../src/configuration/override.store';
import { AuditEntry as Entry } from '../../src/audit/audit.store';
import { bearer, startApp, TestApp } from '../support/app';

const SECRET_KEY = /sk_[0-9a-f]{64}/;

describe('audit trail (e2e)', () => {
  let t: TestApp;
  let adminId: string;

  beforeAll(async () => {
    t = await startApp();
    const me = await t.http().get('/api/v1/auth/me').set(bearer(t.adminKey));
    adminId = (me.body as { key_id: string }).key_id;
  });
  afterAll(() => t.close());

  const entries = async (query = '') =>
    (
      (await t.http().get(`/api/v1/audit${query}`).set(bearer(t.adminKey)).expect(200)).body as {
        entries: Entry[];
      }
    ).entries;
  const tool = (name: string, body: object) =>
    t.http().post(`/api/v1/services/${name}`).set(bearer(t.adminKey)).send(body);

  it('records the initial key as the service, with source system', async () => {
    const all = await entries();
    expect(all[all.length - 1]).toMatchObject({
      actor_key_id: null,
      action: 'api_key.create',
      target: adminId,
      request_id: null,
      details: { name: 'initial-admin', scopes: ['*'], source: 'system' },
    });
  });

  it('records create, update, rotate and revoke by the acting key, with the request id', async () => {
    const created = await t
      .http()
      .post('/api/v1/auth/api-keys')
      .set(bearer(t.adminKey))
      .send({ name: 'audited', scope_template: 'standard', daily_limit: 10 });
    const id = created.body.id as string;
    const patched = await t
      .http()
      .patch(`/api/v1/auth/api-keys/${id}`)
      .set(bearer(t.adminKey))
      .send({ daily_limit: 20, name: 'audited', enabled: false });
    await t
      .http()
      .patch(`/api/v1/auth/api-keys/${id}`)
      .set(bearer(t.adminKey))
      .send({})
      .expect(200);
    await t
      .http()
      .post(`/api/v1/auth/api-keys/${id}/rotate`)
      .set(bearer(t.adminKey))
      .send({ grace_seconds: 60 })
      .expect(201);
    await t.http().delete(`/api/v1/auth/api-keys/${id}`).set(bearer(t.adminKey)).expect(200);
    await t.http().delete(`/api/v1/auth/api-keys/${id}`).set(bearer(t.adminKey)).expect(200);
    const mine = (await entries()).filter((e) => e.target === id);
    expect(mine.map((e) => e.action)).toEqual([
      'api_key.revoke',
      'api_key.rotate',
      'api_key.update',
      'api_key.create',
    ]);
    const [revoke, rotate, update, create] = mine;
    expect(create).toMatchObject({
      actor_key_id: adminId,
      request_id: created.headers['x-request-id'],
      details: {
        name: 'audited',
        scopes: ['services:read', 'services:execute'],
        plan: 'free',
        daily_limit: 10,
        rate_limit: null,
        expires_at: null,
      },
    });
    expect(update.request_id).toBe(patched.headers['x-request-id']);
    expect(update.details).toEqual({
      daily_limit: { from: 10, to: 20 },
      enabled: { from: true, to: false },
    });
    expect(rotate.details).toEqual({ grace_seconds: 60 });
    expect(revoke.details).toEqual({});
    expect(Date.parse(revoke.at)).toBeGreaterThanOrEqual(Date.parse(create.at));
    expect(revoke.id).toBeGreaterThan(create.id);
  });

  it('records config_set with a secret masked, over REST and MCP, and doctor fixes, with their request ids', async () => {
    const set = await tool('config_set', { key: 'llm_config.api_key', value: 'super-secret-1' });
    expect(set.status).toBe(200);
    await tool('config_set', { key: 'logging.verbose', value: 'yes' }).expect(200);
    const overMcp = await t
      .http()
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .set(bearer(t.adminKey))
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'config_set', arguments: { key: 'logging.verbose', value: 'no' } },
      })
      .expect(200);
    // An override the schema rejects (written behind the service's back): doctor's fix removes it.
    await t.app.get(OverrideStore).setOverride('logging.level', 'shouting');
    const fixed = await tool('doctor', { fix: true });
    expect(fixed.status).toBe(200);
    const recent = await entries('?limit=4');
    expect(recent.map((e) => [e.action, e.target, e.actor_key_id])).toEqual([
      ['doctor.fix', 'doctor', adminId],
      ['config.set', 'logging.verbose', adminId],
      ['config.set', 'logging.verbose', adminId],
      ['config.set', 'llm_config.api_key', adminId],
    ]);
    expect(recent[3].details).toEqual({ value: '********' });
    expect(recent[3].request_id).toBe(set.headers['x-request-id']);
    expect(recent[2].details).toEqual({ value: true });
    expect(recent[1].details).toEqual({ value: false });
    // Over MCP, the /mcp request's id: the actor is handed to the tool, not read from a context.
    expect(recent[1].request_id).toBe(overMcp.headers['x-request-id']);
    expect(recent[0].request_id).toBe(fixed.headers['x-request-id']);
    expect(recent[0].details.fixed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          check: 'config_overrides',
          problem: expect.stringContaining("'logging.level'"),
          status: 'pass',
        }),
      ]),
    );
  });

  it('pages back with before, newest first', async () => {
    // Entries of its own, whatever ran before it.
    for (let i = 0; i < 4; i++) await t.createKey({ name: `audited-${i}` });
    const all = await entries('?limit=500');
    const first = await entries('?limit=2');
    expect(first).toEqual(all.slice(0, 2));
    const next = await entries(`?limit=2&before=${first[1].id}`);
    expect(next).toEqual(all.slice(2, 4));
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort((a, b) => b - a));
  });

  it('refuses bad query values with 400 and callers without admin:read with 403', async () => {
    for (const [query, loc, type] of [
      ['limit=0', 'limit', 'greater_than_equal'],
      ['limit=501', 'limit', 'less_than_equal'],
      ['limit=many', 'limit', 'int_parsing'],
      ['before=last', 'before', 'int_parsing'],
    ]) {
      const res = await t.http().get(`/api/v1/audit?${query}`).set(bearer(t.adminKey));
      expect(res.status).toBe(400);
      expect(res.body.detail[0]).toMatchObject({ loc: ['query', loc], type });
    }
    const standard = await t.createKey({ scope_template: 'standard' });
    const refused = await t.http().get('/api/v1/audit').set(bearer(standard));
    expect(refused.status).toBe(403);
  });

  it('writes one JSON log line per entry, and no secret in an entry or a log line', async () => {
    // A secret set of its own, whatever ran before it.
    await tool('config_set', { key: 'llm_config.api_key', value: 'super-secret-1' }).expect(200);
    const all = await entries('?limit=500');
    const text = JSON.stringify(all);
    expect(text).not.toMatch(SECRET_KEY);
    expect(text).not.toContain('super-secret-1');
    const logged = t.logs
      .records()
      .filter((r) => r.context === 'Audit')
      .map((r) => r.audit as Entry);
    expect(logged.map((e) => e.id).sort()).toEqual(all.map((e) => e.id).sort());
    expect(logged.find((e) => e.action === 'config.set')).toHaveProperty('details.value');
    expect(t.logs.text()).not.toMatch(SECRET_KEY);
    expect(t.logs.text()).not.toContain('super-secret-1');
  });
});

describe('audit lines at any logging level (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t.close());

  it('writes the audit line of every entry even at logging.level fatal: a standard key cannot silence them', async () => {
    const standard = await t.createKey({ scope_template: 'standard' });
    const set = await t
      .http()
      .post('/api/v1/services/config_set')
      .set(bearer(standard))
      .send({ key: 'logging.level', value: 'fatal' });
    expect(set.status).toBe(200);
    const created = await t.createKeyWithId({ name: 'after-silence' });
    const logged = t.logs
      .records()
      .filter((r) => r.context === 'Audit')
      .map((r) => r.audit as Entry);
    expect(
      logged.find((e) => e.action === 'api_key.create' && e.target === created.id),
    ).toMatchObject({ details: expect.objectContaining({ name: 'after-silence' }) });
    expect(logged.find((e) => e.action === 'config.set')).toMatchObject({
      target: 'logging.level',
    });
    // Other lines below fatal stay silent: only the audit trail is exempt.
    const info = t.logs.records().filter((r) => r.level === 'info' && r.context !== 'Audit');
    const before = info.length;
    await t.http().get('/api/v1/nothing-here').set(bearer(standard));
    expect(
      t.logs.records().filter((r) => r.level === 'info' && r.context !== 'Audit'),
    ).toHaveLength(before);
  });
});
