import type { ChildProcess } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SourcesService } from '../../src/sources';
import { freePort } from '../../src/testing';
import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { writeConfigFile } from '../support/config';
import { CLIENT_KINDS, connectHttp, textOf } from '../support/mcp-clients';
import { initializeRequest } from '../support/mcp-messages';
import {
  eventually,
  HttpUpstream,
  SDK1_SERVER,
  startEverythingHttp,
  startSdk1Http,
  stopProcess,
} from '../support/upstreams';

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/**
 * `POST /mcp/sources/<source>`: a source served alone as an MCP server of its own, under the
 * upstream's own tool names, against real upstreams (`@modelcontextprotocol/server-everything` over
 * Streamable HTTP, the SDK 1.x server over stdio and HTTP), with every client era; and the
 * sources' state on /health and in doctor, ready and then unavailable.
 */
describe('MCP sources: a source’s own endpoint (e2e)', () => {
  let t: TestApp;
  let everything: ChildProcess;
  let doomed: HttpUpstream;
  let key: string;
  let base: URL;
  /** server-everything's own port: what it answers directly is what its source passes on. */
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    everything = await startEverythingHttp(port);
    doomed = await startSdk1Http();
    const dataDir = tempDataDir();
    const yaml = `sources:
  everything:
    kind: mcp
    url: http://127.0.0.1:${port}/mcp
    include: [echo, get-sum]
    cost: 2
  local:
    kind: mcp
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(SDK1_SERVER)}, stdio]
    include: [echo]
  doomed:
    kind: mcp
    url: ${doomed.url}
    include: [echo]
`;
    t = await startApp({
      dataDir,
      env: { CONFIG_FILE: writeConfigFile(dataDir, yaml), SOURCE_ALLOW_PRIVATE: 'true' },
    });
    key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
    const sources = t.app.get(SourcesService);
    await eventually(() => sources.list().every((source) => source.state === 'ready'), 40_000);
    base = new URL(await t.url());
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    if (everything) await stopProcess(everything);
    await doomed?.stop();
  });

  const endpoint = (source: string) => new URL(`/mcp/sources/${source}`, base);
  const post = (source: string, body: object, headers: Record<string, string> = {}) => {
    let req = t
      .http()
      .post(`/mcp/sources/${source}`)
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json, text/event-stream');
    for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
    return req.send(body);
  };
  const modern = (method: string, params: object = {}, name?: string) => ({
    body: { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: ENVELOPE } },
    headers: {
      'MCP-Protocol-Version': MODERN,
      'Mcp-Method': method,
      ...(name === undefined ? {} : { 'Mcp-Name': name }),
    },
  });

  it.each(CLIENT_KINDS)(
    'lists the source’s tools alone under their upstream names, and calls one (%s)',
    async (kind) => {
      const client = await connectHttp(kind, endpoint('everything'), key);
      try {
        const names = (await client.listTools()).tools.map(({ name }) => name);
        expect(names).toEqual(['echo', 'get-sum']);
        const before = (await t.ledger({ tool: 'everything_echo' })).length;
        const result = await client.callTool({ name: 'echo', arguments: { message: kind } });
        expect(result.isError).toBeFalsy();
        expect(textOf(result)).toContain(kind);
        const entries = await t.ledger({ tool: 'everything_echo' });
        expect(entries).toHaveLength(before + 1);
        expect(entries.find(({ credits }) => credits === 2)).toMatchObject({
          tool: 'everything_echo',
          source: 'everything',
          kind: 'charge',
          transport: 'mcp',
        });
      } finally {
        await client.close();
      }
    },
  );

  it('holds a run’s token to its budget there, each call charged to the run', async () => {
    const run = await t.createRun(key, { budget: 3, label: 'source endpoint' });
    const client = await connectHttp('modern', endpoint('everything'), run.token);
    try {
      const first = await client.callTool({ name: 'echo', arguments: { message: 'one' } });
      expect(first.isError).toBeFalsy();
      const second = await client.callTool({ name: 'echo', arguments: { message: 'two' } });
      expect(second.isError).toBe(true);
      expect(textOf(second)).toBe('Run budget exhausted (2/3).');
    } finally {
      await client.close();
    }
    const entries = await t.ledger({ run: run.id });
    expect(entries).toEqual([
      expect.objectContaining({ tool: 'everything_echo', source: 'everything', credits: 2 }),
    ]);
  });

  it('answers initialize (2025) with the source’s name as serverInfo', async () => {
    const res = await post('everything', initializeRequest(), bearer(key));
    expect(res.status).toBe(200);
    expect(res.body.result.serverInfo).toEqual({ name: 'everything', version: expect.any(String) });
    expect(res.body.result.capabilities).toMatchObject({ tools: {} });
  });

  it('answers 2026-07-28 server/discover, tools/list and tools/call as the source', async () => {
    const serverInfo = { name: 'everything', version: expect.any(String) };
    const discover = modern('server/discover');
    const found = await post('everything', discover.body, { ...discover.headers, ...bearer(key) });
    expect(found.status).toBe(200);
    expect(found.body.result._meta['io.modelcontextprotocol/serverInfo']).toEqual(serverInfo);
    const list = modern('tools/list');
    const listed = await post('everything', list.body, { ...list.headers, ...bearer(key) });
    expect(listed.status).toBe(200);
    expect(listed.body.result.tools.map(({ name }: { name: string }) => name)).toEqual([
      'echo',
      'get-sum',
    ]);
    expect(listed.body.result._meta['io.modelcontextprotocol/serverInfo']).toEqual(serverInfo);
    const call = modern('tools/call', { name: 'get-sum', arguments: { a: 2, b: 3 } }, 'get-sum');
    const called = await post('everything', call.body, { ...call.headers, ...bearer(key) });
    expect(called.status).toBe(200);
    expect(called.headers['x-quota-cost']).toBe('2');
    expect(JSON.stringify(called.body.result.content)).toContain('5');
    expect(called.body.result._meta['io.tis/quota']).toMatchObject({ cost: 2 });
  });

  it('knows only the source’s tools: a native tool or another source’s is unknown there', async () => {
    for (const name of ['greet', 'everything_echo', 'local_echo']) {
      const call = modern('tools/call', { name, arguments: { name: 'A' } }, name);
      const res = await post('everything', call.body, { ...call.headers, ...bearer(key) });
      expect(res.status).toBe(200);
      expect(res.body.error).toMatchObject({ code: -32602 });
    }
  });

  /** One request of the 2026-07-28 revision on `path`, its JSON-RPC answer. */
  const ask = async (
    path: string,
    method: string,
    params: { uri?: string; name?: string; [field: string]: unknown },
    credential = key,
    status = 200,
  ) => {
    // 2026-07-28 names what a request reads in its Mcp-Name header: a resource's URI, a prompt's name.
    const { body, headers } = modern(method, params, params.uri ?? params.name);
    let req = t
      .http()
      .post(path)
      .set('Content-Type', 'application/json')
      .set('Accept', 'application/json, text/event-stream');
    for (const [name, value] of Object.entries({ ...headers, ...bearer(credential) }))
      req = req.set(name, value);
    const res = await req.send(body);
    if (res.status !== status) throw new Error(`${res.status}: ${res.text}`);
    return res.body as {
      result?: Record<string, unknown>;
      error?: { code: number; message: string };
    };
  };

  it('passes the upstream’s resources and prompts through as it answers them, never charged', async () => {
    const direct = new Client({ name: 'direct', version: '1.0.0' });
    await direct.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
    );
    try {
      const initialized = await post('everything', initializeRequest(), bearer(key));
      expect(initialized.body.result.capabilities).toMatchObject({
        tools: {},
        resources: {},
        prompts: {},
        completions: {},
        logging: {},
      });
      // A 2025 client's logging/setLevel is answered, not sent on (the upstream's connection is
      // every caller's); 2026-07-28 has no such method.
      const level = await post(
        'everything',
        { jsonrpc: '2.0', id: 7, method: 'logging/setLevel', params: { level: 'info' } },
        { 'MCP-Protocol-Version': '2025-06-18', ...bearer(key) },
      );
      expect([level.status, level.body]).toEqual([200, { jsonrpc: '2.0', id: 7, result: {} }]);
      const before = (await t.ledger()).length;

      const resources = (await direct.request({ method: 'resources/list', params: {} })).resources;
      expect(resources.length).toBeGreaterThan(0);
      const listed = await ask('/mcp/sources/everything', 'resources/list', {});
      expect(listed.result?.resources).toEqual(resources);

      const { uri } = resources[0];
      const read = await ask('/mcp/sources/everything', 'resources/read', { uri });
      const contents = (await direct.request({ method: 'resources/read', params: { uri } }))
        .contents;
      expect(read.result?.contents).toEqual(contents);

      const prompts = (await direct.request({ method: 'prompts/list', params: {} })).prompts;
      expect((await ask('/mcp/sources/everything', 'prompts/list', {})).result?.prompts).toEqual(
        prompts,
      );
      const plain = prompts.find((prompt) => !prompt.arguments?.some((a) => a.required));
      expect(plain).toBeDefined();
      const got = await ask('/mcp/sources/everything', 'prompts/get', { name: plain!.name });
      const messages = (
        await direct.request({ method: 'prompts/get', params: { name: plain!.name } })
      ).messages;
      expect(got.result?.messages).toEqual(messages);

      // Reads: nothing charged, no ledger entry.
      expect(await t.ledger()).toHaveLength(before);
    } finally {
      await direct.close();
    }
  });

  it('refuses them to a caller whose scopes do not allow every tool of the source', async () => {
    const narrow = await t.createKey({ scopes: ['services:execute:everything_echo'] });
    const answer = await ask('/mcp/sources/everything', 'resources/list', {}, narrow);
    expect(answer.error).toEqual({
      code: -32600,
      message:
        'resources/list of source everything needs the scope services:execute or services:execute:@everything.',
    });
    const wide = await t.createKey({ scopes: ['services:execute:@everything'] });
    expect(
      (await ask('/mcp/sources/everything', 'resources/list', {}, wide)).result?.resources,
    ).toEqual(expect.any(Array));
  });

  it('declares no resources where the upstream serves none, nor on /mcp', async () => {
    for (const path of ['/mcp/sources/local', '/mcp']) {
      const initialized = await t
        .http()
        .post(path)
        .set('Content-Type', 'application/json')
        .set('Accept', 'application/json, text/event-stream')
        .set(bearer(key))
        .send(initializeRequest());
      expect(initialized.body.result.capabilities.resources).toBeUndefined();
      expect(initialized.body.result.capabilities.prompts).toBeUndefined();
      // 2026-07-28 over HTTP: a method the server does not serve is 404 with the JSON-RPC error.
      expect((await ask(path, 'resources/list', {}, key, 404)).error).toEqual({
        code: -32601,
        message: 'Method not found',
      });
    }
  });

  it('refuses a POST without a key (401), an unknown source (404)', async () => {
    const anonymous = await post('everything', initializeRequest());
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: 'Not authenticated' });
    expect(anonymous.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    const unknown = await post('nope', initializeRequest(), bearer(key));
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Source not found' });
    await expect(connectHttp('modern', endpoint('nope'), key)).rejects.toBeDefined();
  });

  it('holds a key to its scopes: another source’s tools are not listed, and their call is 403', async () => {
    const scoped = await t.createKey({ scopes: ['services:execute:@local'], plan: 'unlimited' });
    const local = await connectHttp('legacy', endpoint('local'), scoped);
    try {
      expect((await local.listTools()).tools.map(({ name }) => name)).toEqual(['echo']);
      expect(textOf(await local.callTool({ name: 'echo', arguments: { text: 'mine' } }))).toBe(
        'mine',
      );
    } finally {
      await local.close();
    }
    const list = modern('tools/list');
    const listed = await post('everything', list.body, { ...list.headers, ...bearer(scoped) });
    expect(listed.body.result.tools).toEqual([]);
    const call = modern('tools/call', { name: 'echo', arguments: { message: 'no' } }, 'echo');
    const refused = await post('everything', call.body, { ...call.headers, ...bearer(scoped) });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBeDefined();
    expect(refused.headers['www-authenticate']).toContain(
      'scope="services:execute:everything_echo"',
    );
    const perTool = await t.createKey({
      scopes: ['services:execute:everything_echo'],
      plan: 'unlimited',
    });
    const one = await post('everything', list.body, { ...list.headers, ...bearer(perTool) });
    expect(one.body.result.tools.map(({ name }: { name: string }) => name)).toEqual(['echo']);
  });

  it('lists the source tools’ REST operations in the served OpenAPI document, the upstream’s schema converted', async () => {
    const res = await t.http().get('/openapi.json').expect(200);
    const paths = res.body.paths as Record<string, Record<string, Record<string, unknown>>>;
    const echo = paths['/api/v1/services/everything_echo']?.post;
    expect(echo).toMatchObject({
      operationId: 'everything_echo',
      tags: ['tools'],
      security: [{ bearer: [] }],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { type: 'object', properties: { message: expect.anything() } },
          },
        },
      },
    });
    expect(JSON.stringify(echo)).not.toContain('$schema');
    expect(Object.keys(echo.responses as object)).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '503']),
    );
    expect(paths['/api/v1/services/local_echo']?.post).toBeDefined();
    // Only the tools sources list: an excluded one has no operation.
    expect(paths['/api/v1/services/local_env']).toBeUndefined();
  });

  it('shows each source on /health and in doctor: ready, then unavailable once its upstream stops', async () => {
    const health = async () => (await t.http().get('/health').expect(200)).body;
    const ready = await health();
    expect(ready.status).toBe('ok');
    expect(ready.components.sources).toEqual({
      status: 'ok',
      sources: {
        doomed: { state: 'ready', tools: 1 },
        everything: { state: 'ready', tools: 2 },
        local: { state: 'ready', tools: 1 },
      },
    });
    const doctor = async () => {
      const res = await t.callTool('doctor', {}, key).expect(200);
      return (res.body.checks as { name: string; status: string; message: string }[]).find(
        ({ name }) => name === 'sources',
      );
    };
    expect(await doctor()).toMatchObject({ status: 'pass', message: '3 sources, all ready' });
    await doomed.stop();
    // Its next listing (a refresh on demand here) finds it gone.
    await t.http().post('/api/v1/sources/doomed/refresh').set(bearer(t.adminKey)).expect(200);
    await eventually(async () => (await health()).components.sources.status === 'degraded');
    const down = await health();
    expect(down.status).toBe('ok');
    expect(down.components.sources.sources.doomed).toEqual({ state: 'unavailable', tools: 1 });
    expect(down.components.sources.sources.everything.state).toBe('ready');
    const check = await doctor();
    expect(check?.status).toBe('warn');
    expect(check?.message).toMatch(/^doomed is unavailable/);
    expect(check?.message).not.toContain('everything');
  }, 30_000);
});
