import { SourcesService } from '../../src/sources';
import { bearer, startApp, tempDataDir, TestApp } from '../support/app';
import { writeConfigFile } from '../support/config';
import { textOf } from '../support/mcp-clients';
import { eventually } from '../support/upstreams';
import { FastApiService, startFastApi } from '../support/upstreams/fastapi';

const SOURCE_KEY = 'source-key-of-the-service';

/**
 * A REST service that is not ours (FastAPI, run by Debian's python3) behind the service as a
 * source of kind openapi: its operations are tools, called over REST and MCP, charged, in the
 * ledger, with the source's credentials and never the caller's.
 */
describe('OpenAPI sources (e2e)', () => {
  let t: TestApp;
  let api: FastApiService;
  let key: string;

  beforeAll(async () => {
    api = await startFastApi();
    const dataDir = tempDataDir();
    t = await startApp({
      dataDir,
      env: {
        CONFIG_FILE: writeConfigFile(
          dataDir,
          `sources:
  shop:
    kind: openapi
    document: ${api.documentUrl}
    base_url: ${api.url}
    include: [get_item, create_item, whoami, missing_item]
    cost: 2
    auth: { type: header, name: X-Source-Key, value: "\${SHOP_KEY}" }
`,
        ),
        SOURCE_ALLOW_PRIVATE: 'true',
        SHOP_KEY: SOURCE_KEY,
      },
    });
    key = await t.createKey({ scope_template: 'standard', plan: 'unlimited' });
    const sources = t.app.get(SourcesService);
    await eventually(() => sources.get('shop')?.state === 'ready', 150_000);
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await api?.stop();
  });

  it('calls an operation over REST: the upstream JSON, charged the source cost, its ledger entry naming the source', async () => {
    // Other tests of this file call shop_get_item too, in an order --randomize chooses.
    const before = (await t.ledger({ tool: 'shop_get_item' })).length;
    const res = await t
      .callTool('shop_get_item', { item_id: 'a b', q: 'x', tag: ['t1', 't2'] }, key)
      .expect(200);
    expect(res.body).toEqual({ item_id: 'a b', q: 'x', limit: 10, tag: ['t1', 't2'] });
    expect(res.headers['x-quota-cost']).toBe('2');
    const entries = await t.ledger({ tool: 'shop_get_item' });
    expect(entries).toHaveLength(before + 1);
    const mine = entries.find(({ request_id }) => request_id === res.headers['x-request-id']);
    expect(mine).toMatchObject({ source: 'shop', credits: 2, kind: 'charge', transport: 'rest' });
  });

  it('sends the JSON body, and the source credentials instead of the caller token', async () => {
    const created = await t
      .callTool('shop_create_item', { body: { name: 'pen', price: 2.5 } }, key)
      .expect(200);
    expect(created.body).toMatchObject({ id: 7, item: { name: 'pen', price: 2.5 } });
    const seen = await t.callTool('shop_whoami', { 'x-request-id': 'r1' }, key).expect(200);
    expect(seen.body).toMatchObject({ x_request_id: 'r1', x_source_key: SOURCE_KEY });
    expect(seen.body.authorization).toBeNull();
    expect(JSON.stringify(seen.body)).not.toContain(key);
  });

  it('answers another status as 502 with the upstream detail, and a bad input as 400 unsent', async () => {
    const missing = await t.callTool('shop_missing_item', { item_id: 4 }, key).expect(502);
    expect(missing.body.detail).toBe('Source shop answered 404: Item 4 not found');
    const bad = await t.callTool('shop_get_item', { q: 'no id' }, key).expect(400);
    expect(bad.body.detail).toBeDefined();
  });

  it('serves the operations over MCP, the JSON as text and structured content', async () => {
    const client = await t.mcp(key);
    const tools = (await client.listTools()).tools;
    const names = tools.map(({ name }) => name);
    expect(names).toEqual(expect.arrayContaining(['shop_get_item', 'shop_create_item']));
    expect(names).not.toContain('shop_large');
    const getItem = tools.find(({ name }) => name === 'shop_get_item') as { annotations?: object };
    expect(getItem.annotations).toMatchObject({ readOnlyHint: true });
    const result = await client.callTool({ name: 'shop_get_item', arguments: { item_id: '9' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ item_id: '9', q: null, limit: 10, tag: [] });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it('shows the source and its tools to admin:read, without its secret', async () => {
    const admin = await t.createKey({ scope_template: 'admin' });
    const res = await t.http().get('/api/v1/sources/shop').set(bearer(admin)).expect(200);
    expect(res.body).toMatchObject({ name: 'shop', kind: 'openapi', state: 'ready' });
    expect(res.body.tools.map(({ name }: { name: string }) => name)).toEqual(
      expect.arrayContaining(['shop_get_item', 'shop_whoami']),
    );
    expect(JSON.stringify(res.body)).not.toContain(SOURCE_KEY);
  });
});
