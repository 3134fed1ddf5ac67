import { startTestApp, type TestApp } from 'tool-invocation-service/testing';
import { WordCountToolModule } from '../src/tools/word_count.tool';

/**
 * A team's suite on the kit (the package's `/testing` entry), in a project made as
 * docs/testing-kit.md says (scripts/kit-scratch-project.sh copies it there after the page's steps),
 * on the tool the package's generator wrote (`npx tool-invocation-service tools new word_count
 * --cost 2`): over REST and MCP of both eras, on SQLite and on a Redis the kit starts.
 */
describe.each(['sqlite', 'redis'] as const)('word_count on %s (e2e)', (store) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ tools: [WordCountToolModule], store });
  });
  afterAll(() => t.close());

  it('is served on the store asked for', () => {
    expect(Boolean(t.env.REDIS_URL)).toBe(store === 'redis');
  });

  it('answers over REST, with its cost in X-Quota-Cost', async () => {
    const key = await t.createKey({ scopes: ['services:execute'] });
    const res = await t.callTool('word_count', { text: 'to be or not to be' }, key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ words: 6 });
    expect(res.headers['x-quota-cost']).toBe('2');
  });

  it('refuses an invalid input with a 400', async () => {
    const key = await t.createKey({ scopes: ['services:execute'] });
    const res = await t.callTool('word_count', { text: '' }, key);
    expect(res.status).toBe(400);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'text'] })]);
  });

  it('answers over MCP of both eras, and usage counts every call', async () => {
    const key = await t.createKey({ scopes: ['services:execute'] });
    for (const era of ['modern', 'v1'] as const) {
      const client = await t.mcp(key, era);
      expect(client.version).toBe(era === 'modern' ? '2026-07-28' : '2025');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('word_count');
      const result = await client.callTool({ name: 'word_count', arguments: { text: 'a b c' } });
      expect(result.structuredContent).toEqual({ words: 3 });
    }
    expect(await t.usage(key)).toMatchObject({ used: 4 });
  });
});
