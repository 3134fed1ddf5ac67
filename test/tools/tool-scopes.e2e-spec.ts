import { bearer, startApp, TestApp } from '../support/app';
import { startStdioMcp } from '../support/stdio-mcp';

const FORBIDDEN = { detail: 'Insufficient permissions for this operation.' };

/** `services:execute:<tool>`: a key that may call one tool and not the rest (docs/keys-and-limits.md). */
describe('Per-tool scopes (e2e)', () => {
  let t: TestApp;
  let greetOnly: string;

  beforeAll(async () => {
    t = await startApp();
    greetOnly = await t.createKey({ scopes: ['services:execute:greet'], plan: 'unlimited' });
  });
  afterAll(() => t.close());

  const mcp = (key: string, body: object) =>
    t
      .http()
      .post('/mcp')
      .set(bearer(key))
      .set('Accept', 'application/json, text/event-stream')
      .send(body);
  const call = (name: string, args: object = {}) =>
    mcp(greetOnly, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: args },
    });

  it('allows its tool over REST and refuses the others 403', async () => {
    const greet = await t
      .http()
      .post('/api/v1/services/greet')
      .set(bearer(greetOnly))
      .send({ name: 'Ada' });
    expect([greet.status, greet.body]).toEqual([200, { message: 'Hello, Ada!', times: 1 }]);
    const other = await t
      .http()
      .post('/api/v1/services/config_show')
      .set(bearer(greetOnly))
      .send({});
    expect([other.status, other.body]).toEqual([403, FORBIDDEN]);
  });

  it('shows discovery and tools/list only the tools it may call', async () => {
    const discovery = await t.http().get('/api/v1/services').set(bearer(greetOnly));
    expect(discovery.status).toBe(200);
    expect(
      (discovery.body.tools as { name: string; scope: string }[]).map((x) => [x.name, x.scope]),
    ).toEqual([['greet', 'services:execute:greet']]);
    const reader = await t.createKey({ scope_template: 'read_only' });
    const all = await t.http().get('/api/v1/services').set(bearer(reader));
    expect((all.body.tools as unknown[]).length).toBeGreaterThan(1);
    const listed = await mcp(greetOnly, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect((listed.body.result.tools as { name: string }[]).map((x) => x.name)).toEqual(['greet']);
  });

  it('answers a forbidden tool over MCP HTTP 403 before anything is counted or runs', async () => {
    const ok = await call('greet', { name: 'Ada' });
    expect(ok.body.result.structuredContent).toEqual({ message: 'Hello, Ada!', times: 1 });
    const before = (await t.http().get('/api/v1/usage').set(bearer(greetOnly))).body.used as number;
    const refused = await call('config_show');
    expect([refused.status, refused.body]).toEqual([403, FORBIDDEN]);
    expect(refused.headers['www-authenticate']).toBe(
      'Bearer error="insufficient_scope", scope="services:execute:config_show"',
    );
    const batch = await mcp(greetOnly, [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'greet', arguments: { name: 'A' } },
      },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'doctor', arguments: {} } },
    ]);
    expect(batch.status).toBe(403);
    expect((await t.http().get('/api/v1/usage').set(bearer(greetOnly))).body.used).toBe(before);
  });

  it.each(['v1', 'modern'] as const)(
    'answers a forbidden tool over stdio with an isError result of the 403 text (%s)',
    async (client) => {
      const stdio = await startStdioMcp({ dataDir: t.dataDir, key: greetOnly, client });
      try {
        const ok = await stdio.client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
        expect(ok.structuredContent).toEqual({ message: 'Hello, Ada!', times: 1 });
        const refused = await stdio.client.callTool({ name: 'config_show', arguments: {} });
        expect(refused.isError).toBe(true);
        expect(refused.content).toEqual([{ type: 'text', text: FORBIDDEN.detail }]);
        const { tools } = await stdio.client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(['greet']);
      } finally {
        await stdio.close();
      }
    },
  );

  it('grants only registered tools, and never more than the granter holds', async () => {
    const granter = await t.createKey({
      scopes: ['admin:write', 'services:execute:greet'],
      plan: 'unlimited',
    });
    const create = (scopes: string[]) =>
      t.http().post('/api/v1/auth/api-keys').set(bearer(granter)).send({ name: 'x', scopes });
    expect((await create(['services:execute:greet'])).status).toBe(201);
    const wider = await create(['services:execute']);
    expect([wider.status, wider.body]).toEqual([403, FORBIDDEN]);
    expect((await create(['services:execute:doctor'])).status).toBe(403);
    const unknown = await t
      .http()
      .post('/api/v1/auth/api-keys')
      .set(bearer(t.adminKey))
      .send({ name: 'x', scopes: ['services:execute:no_such_tool'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail[0].msg).toContain('services:execute:greet');
  });
});
