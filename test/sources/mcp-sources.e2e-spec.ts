import { SourcesService } from '../../src/sources';
import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { writeConfigFile } from '../support/config';
import { textOf } from '../support/mcp-clients';
import {
  EVERYTHING_SERVER,
  eventually,
  HttpUpstream,
  SDK1_SERVER,
  startSdk1Http,
} from '../support/upstreams';

const UPSTREAM_TOKEN = 'upstream-secret-token';

function config(remote: string): string {
  return `sources:
  local:
    kind: mcp
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(SDK1_SERVER)}, stdio]
    env: { CHILD_SETTING: "\${CHILD_VALUE}" }
    exclude: [big, "fai*"]
    timeout_ms: 3000
    tools:
      echo: { cost: 3 }
  remote:
    kind: mcp
    url: ${remote}
    auth: { type: bearer, token: "\${UPSTREAM_TOKEN}" }
    include: [echo, headers, wait, cancelled, fail, big]
    timeout_ms: 5000
  clash:
    kind: mcp
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(SDK1_SERVER)}, stdio]
    prefix: Config
    include: [show, echo]
  everything:
    kind: mcp
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio]
    include: [echo, get-sum]
`;
}

/**
 * MCP servers as sources, against real upstreams the test starts: the SDK 1.x server of
 * test/support/upstreams/ over stdio and Streamable HTTP, and `@modelcontextprotocol/server-everything`
 * over stdio. Their tools are called over REST and MCP, charged, in the ledger, scoped, filtered.
 */
describe('MCP sources (e2e)', () => {
  let t: TestApp;
  let upstream: HttpUpstream;
  let key: string;

  beforeAll(async () => {
    upstream = await startSdk1Http();
    const dataDir = tempDataDir();
    t = await startApp({
      dataDir,
      env: {
        CONFIG_FILE: writeConfigFile(dataDir, config(upstream.url)),
        SOURCE_ALLOW_PRIVATE: 'true',
        CHILD_VALUE: 'for-the-child',
        UPSTREAM_TOKEN,
      },
    });
    key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
    // Four upstreams start at once on a busy machine (load 22 on 2 cores took over 40 s): each is
    // listed when it answers.
    const sources = t.app.get(SourcesService);
    await eventually(() => sources.list().every((source) => source.state === 'ready'), 150_000);
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await upstream?.stop();
  });

  it('answers an MCP tool over REST with the upstream result, charged its cost, its ledger entry naming the tool', async () => {
    // Other tests of this file call local_echo too, in an order --randomize chooses.
    const before = (await t.ledger({ tool: 'local_echo' })).length;
    const res = await t.callTool('local_echo', { text: 'hello' }, key).expect(200);
    expect(res.body).toEqual({
      content: [{ type: 'text', text: 'hello' }],
      structuredContent: { text: 'hello' },
      isError: false,
    });
    expect(res.headers['x-quota-cost']).toBe('3');
    const entries = await t.ledger({ tool: 'local_echo' });
    expect(entries).toHaveLength(before + 1);
    expect(
      entries.find(({ request_id }) => request_id === res.headers['x-request-id']),
    ).toMatchObject({
      tool: 'local_echo',
      source: 'local',
      credits: 3,
      kind: 'charge',
      transport: 'rest',
    });
  });

  it('checks the input against the upstream schema (400) before calling it', async () => {
    const res = await t.callTool('local_echo', { text: 7 }, key).expect(400);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'text'], type: 'type' });
  });

  it('lists and calls the tools over MCP, include and exclude applied, a name it cannot serve left out', async () => {
    const client = await t.mcp(key);
    const names = (await client.listTools()).tools.map(({ name }) => name);
    const local = t.app.get(SourcesService).get('local')!;
    expect([local.state, local.lastError]).toEqual(['ready', expect.anything()]);
    expect(names).toEqual(
      expect.arrayContaining([
        'local_echo',
        'local_env',
        'remote_echo',
        'everything_echo',
        'everything_get-sum',
      ]),
    );
    expect(names).not.toEqual(expect.arrayContaining(['local_big']));
    expect(names.filter((name) => name.startsWith('local_fai'))).toEqual([]);
    expect(names.filter((name) => name.startsWith('remote_'))).toEqual(
      expect.arrayContaining(['remote_echo', 'remote_headers', 'remote_wait', 'remote_fail']),
    );
    expect(names).not.toContain('remote_env');
    const result = await client.callTool({ name: 'remote_echo', arguments: { text: 'over mcp' } });
    expect(textOf(result)).toBe('over mcp');
    const sum = await client.callTool({ name: 'everything_get-sum', arguments: { a: 2, b: 3 } });
    expect(textOf(sum)).toContain('5');
    expect(t.app.get(SourcesService).get('local')?.lastError).toContain('bad name!');
  });

  it('refuses a name that collides with a native tool, case aside, and says so on the source', async () => {
    const clash = t.app.get(SourcesService).get('clash')!;
    expect(clash.state).toBe('ready');
    expect(clash.tools.map(({ tool }) => tool.name)).toEqual(['Config_echo']);
    expect(clash.lastError).toContain('Config_show is taken by another tool');
    const res = await t.callTool('config_show', {}, key);
    expect(res.status).not.toBe(404);
    expect(res.body).not.toEqual(expect.objectContaining({ content: expect.anything() }));
  });

  it('lists the tools in discovery', async () => {
    const res = await t.http().get('/api/v1/services').set(bearer(key)).expect(200);
    const echo = (res.body.tools as { name: string }[]).find(({ name }) => name === 'local_echo');
    expect(echo).toMatchObject({
      name: 'local_echo',
      cost: 3,
      path: '/api/v1/services/local_echo',
    });
  });

  it('sends the source its own credentials, never the caller’s key', async () => {
    const res = await t.callTool('remote_headers', {}, key).expect(200);
    const headers = JSON.parse(res.body.content[0].text as string) as Record<string, string>;
    expect(headers.authorization).toBe(`Bearer ${UPSTREAM_TOKEN}`);
    expect(JSON.stringify(headers)).not.toContain(key);
  });

  it('starts a stdio child with its env and PATH only', async () => {
    const res = await t.callTool('local_env', {}, key).expect(200);
    expect(JSON.parse(res.body.content[0].text as string)).toEqual(['CHILD_SETTING', 'PATH']);
  });

  it('answers an upstream isError result as 200 with isError', async () => {
    const res = await t.callTool('remote_fail', {}, key).expect(200);
    expect(res.body).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'it failed' }],
    });
  });

  it('holds services:execute:@<source> to that source’s tools', async () => {
    const scoped = await t.createKey({ scopes: ['services:execute:@remote'], plan: 'unlimited' });
    await t.callTool('remote_echo', { text: 'ok' }, scoped).expect(200);
    const refused = await t.callTool('local_echo', { text: 'no' }, scoped).expect(403);
    expect(refused.body.detail).toBeDefined();
    const client = await t.mcp(scoped);
    const names = (await client.listTools()).tools.map(({ name }) => name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((name) => name.startsWith('remote_'))).toBe(true);
  });

  it('shows the sources to admin:read, never a secret, and lists one again on POST …/refresh', async () => {
    const admin = bearer(t.adminKey);
    const res = await t.http().get('/api/v1/sources').set(admin).expect(200);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.sources.map(({ name }: { name: string }) => name)).toEqual([
      'clash',
      'everything',
      'local',
      'remote',
    ]);
    const remote = (res.body.sources as Record<string, unknown>[]).find(
      ({ name }) => name === 'remote',
    );
    expect(remote).toMatchObject({
      name: 'remote',
      kind: 'mcp',
      url: upstream.url,
      prefix: 'remote',
      state: 'ready',
      origin: 'config',
    });
    expect(remote?.tools).toEqual(
      expect.arrayContaining([
        { name: 'remote_echo', upstream_name: 'echo', cost: 1, description: 'Echoes its text.' },
      ]),
    );
    expect(JSON.stringify(res.body)).not.toContain(UPSTREAM_TOKEN);
    expect(JSON.stringify(res.body)).not.toContain('for-the-child');
    const page = await t.http().get('/api/v1/sources?limit=1').set(admin).expect(200);
    expect(page.body.sources).toHaveLength(1);
    const second = await t
      .http()
      .get(`/api/v1/sources?limit=1&cursor=${page.body.next_cursor}`)
      .set(admin);
    expect(second.body.sources[0].name).toBe('everything');
    await t.http().get('/api/v1/sources').set(bearer(key)).expect(403);
    await t.http().get('/api/v1/sources/nope').set(admin).expect(404);
    const refreshed = await t.http().post('/api/v1/sources/local/refresh').set(admin).expect(200);
    expect(refreshed.body).toMatchObject({
      name: 'local',
      state: 'ready',
      command: process.execPath,
    });
  });

  it('cancels the upstream call at the deadline (notifications/cancelled over stdio)', async () => {
    const before = Number(
      (await t.callTool('local_cancelled', {}, key).expect(200)).body.content[0].text,
    );
    const res = await t.callTool('local_wait', {}, key);
    expect(res.status).toBe(504);
    await eventually(async () => {
      const now = await t.callTool('local_cancelled', {}, key);
      return Number(now.body.content[0].text) === before + 1;
    });
  }, 30_000);
});
