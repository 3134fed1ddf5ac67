import { bearer, startApp, TestApp } from '../support/app';

const FORBIDDEN = { detail: 'Insufficient permissions for this operation.' };
const challenge = (scope: string) => `Bearer error="insufficient_scope", scope="${scope}"`;

/**
 * A 403 for a missing scope says which scope would do, OAuth configured or not (here: not): the
 * specification's exact detail, and `WWW-Authenticate: Bearer error="insufficient_scope",
 * scope="<needed>"` (RFC 6750), on REST routes, tool calls, a run's calls outside its scopes and
 * MCP over HTTP, where the 403 is the POST's answer. Nothing names the protected resource's
 * metadata without OAuth.
 */
describe('the 403 of a missing scope (e2e)', () => {
  let t: TestApp;
  let reader: string;

  beforeAll(async () => {
    t = await startApp();
    reader = await t.createKey({ scope_template: 'read_only' });
  });
  afterAll(() => t.close());

  const mcp = (credential: string, body: object) =>
    t
      .http()
      .post('/mcp')
      .set(bearer(credential))
      .set('Accept', 'application/json, text/event-stream')
      .send(body);
  const call = (name: string) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: { name: 'Ada', key: 'greeting' } },
  });

  it("names the tool's scope on a tool call", async () => {
    const res = await t.http().post('/api/v1/services/greet').set(bearer(reader)).send({});
    expect([res.status, res.body]).toEqual([403, FORBIDDEN]);
    expect(res.headers['www-authenticate']).toBe(challenge('services:execute:greet'));
  });

  it("names the route's scope, or its scopes when any one of them would do", async () => {
    const standard = await t.createKey({ scope_template: 'standard' });
    const audit = await t.http().get('/api/v1/audit').set(bearer(standard));
    expect([audit.status, audit.body]).toEqual([403, FORBIDDEN]);
    expect(audit.headers['www-authenticate']).toBe(challenge('admin:read'));
    const runs = await t.http().get('/api/v1/runs').set(bearer(reader));
    expect([runs.status, runs.body]).toEqual([403, FORBIDDEN]);
    expect(runs.headers['www-authenticate']).toBe(challenge('services:execute admin:read'));
  });

  it('names the scope a run lacks, over REST and over MCP', async () => {
    const { token } = await t.createRun(t.adminKey, {
      budget: 10,
      scopes: ['services:execute:greet'],
    });
    const ok = await t.http().post('/api/v1/services/greet').set(bearer(token)).send({ name: 'A' });
    expect(ok.status).toBe(200);
    const rest = await t
      .http()
      .post('/api/v1/services/config_get')
      .set(bearer(token))
      .send({ key: 'greeting' });
    expect([rest.status, rest.body]).toEqual([403, FORBIDDEN]);
    expect(rest.headers['www-authenticate']).toBe(challenge('services:execute:config_get'));
    const overMcp = await mcp(token, call('config_get'));
    expect([overMcp.status, overMcp.body]).toEqual([403, FORBIDDEN]);
    expect(overMcp.headers['www-authenticate']).toBe(challenge('services:execute:config_get'));
  });

  it('names services:execute when /mcp is asked without any tool scope', async () => {
    const admin = await t.createKey({ scopes: ['admin:read'] });
    const res = await mcp(admin, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect([res.status, res.body]).toEqual([403, FORBIDDEN]);
    expect(res.headers['www-authenticate']).toBe(challenge('services:execute'));
  });
});
