import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TOOL_MODULES } from '../../src/tools';
import { declaredToolNames } from '../../src/tools/tool.decorator';
import { bearer, startApp, TestApp, listenOnLoopback } from '../support/app';
import { WordCountModule } from '../support/sample-tool.module';
import { startStdioMcp } from '../support/stdio-mcp';

/**
 * src/tools.ts is the one place a tool is registered: a tool added to that list, and nowhere else,
 * is served over REST, listed by discovery, documented in OpenAPI, and served over MCP on HTTP and
 * on stdio. Both roots are built from the list as main.ts and the CLI build them.
 */
describe('one list of tools (e2e)', () => {
  const tools = [...TOOL_MODULES, WordCountModule];
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp({ tools });
    key = await t.createKey({ scope_template: 'standard', plan: 'pro' });
  });
  afterAll(() => t.close());

  /** Every tool of the list (whatever tools a team has added), then the one added here. */
  const NAMES = [...declaredToolNames(TOOL_MODULES), 'word_count'];
  /** MCP's tools/list is in name order (a stable list a client may cache and compare). */
  const BY_NAME = [...NAMES].sort();

  it('serves the tool over REST', async () => {
    const res = await t
      .http()
      .post('/api/v1/services/word_count')
      .set(bearer(key))
      .send({ text: 'a b a', distinct: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ words: 2 });
  });

  it('lists it in discovery and documents it in OpenAPI', async () => {
    const discovery = await t.http().get('/api/v1/services').set(bearer(key));
    expect((discovery.body.tools as { name: string }[]).map((tool) => tool.name)).toEqual(NAMES);
    const openapi = await t.http().get('/openapi.json');
    expect(openapi.body.paths['/api/v1/services/word_count'].post.operationId).toBe('word_count');
  });

  it('serves it over MCP on HTTP', async () => {
    const port = await listenOnLoopback(t.app);
    const client = new Client({ name: 'e2e-registration', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: bearer(key) },
      }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(BY_NAME);
      const result = await client.callTool({ name: 'word_count', arguments: { text: 'x y' } });
      expect(result.structuredContent).toEqual({ words: 2 });
    } finally {
      await client.close();
    }
  });

  it('serves it over MCP on stdio', async () => {
    const stdio = await startStdioMcp({ dataDir: t.dataDir, key, tools });
    try {
      expect((await stdio.client.listTools()).tools.map((tool) => tool.name)).toEqual(BY_NAME);
      const result = await stdio.client.callTool({ name: 'word_count', arguments: { text: 'x' } });
      expect(result.structuredContent).toEqual({ words: 1 });
    } finally {
      await stdio.close();
    }
  });
});
