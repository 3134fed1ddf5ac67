import { join } from 'node:path';
import { bearer, startApp, TestApp } from '../support/app';
import { builtEntry, fixtureToolsRegistered } from '../support/built';
import { connectStdio, textOf } from '../support/mcp-clients';
import { requestBodyOf } from '../support/openapi';
import { GreetModule } from '../../src/tools/greet/greet.module';
import { RepeatToolModule } from './repeat-text.tool';

/**
 * A tool in one file (`defineTool`, test/fixture-tool/repeat-text.tool.ts) reaches every surface a
 * tool in a module, a controller and a service does: REST, discovery, OpenAPI, MCP over HTTP of
 * both eras and over stdio, its per-tool scope and its price in credits. Served alone here
 * (`tools`, beside greet); over stdio in the fixture-tool project, whose built CLI registers it.
 */
describe('a tool in one file: repeat_text (e2e)', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp({ tools: [GreetModule, RepeatToolModule] });
    key = await t.createKey({ scopes: ['services:execute:repeat_text'], plan: 'pro' });
  });
  afterAll(() => t.close());

  it('answers over REST with its defaults filled in, and the caller in its context', async () => {
    const res = await t.callTool('repeat_text', { text: 'la' }, key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ text: 'lala', caller: 'key' });
    expect(res.headers['x-quota-cost']).toBe('3');
  });

  it('validates its input with its field decorators (400)', async () => {
    const res = await t.callTool('repeat_text', { text: '', times: 9, x: 1 }, key);
    expect(res.status).toBe(400);
    expect(res.body.detail).toEqual([
      {
        loc: ['body', 'text'],
        msg: 'String should have at least 1 character',
        type: 'string_too_short',
      },
      {
        loc: ['body', 'times'],
        msg: 'Input should be less than or equal to 5',
        type: 'less_than_equal',
      },
      { loc: ['body', 'x'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
  });

  it('is priced at its cost: each call counts 3 credits', async () => {
    const fresh = await t.createKey({ scopes: ['services:execute:repeat_text'] });
    expect((await t.callTool('repeat_text', { text: 'a', times: 1 }, fresh)).status).toBe(200);
    expect((await t.callTool('repeat_text', { text: 'b', times: 1 }, fresh)).status).toBe(200);
    expect((await t.usage(fresh)).used).toBe(6);
  });

  it('needs its scope: a key for greet alone is refused (403)', async () => {
    const other = await t.createKey({ scopes: ['services:execute:greet'] });
    const res = await t.callTool('repeat_text', { text: 'a' }, other);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Insufficient permissions for this operation.' });
  });

  it('is listed by discovery, with its cost and schemas', async () => {
    const res = await t.http().get('/api/v1/services').set(bearer(key));
    // The key may call repeat_text alone: discovery lists what it may call.
    expect(res.body.tools).toEqual([
      expect.objectContaining({
        name: 'repeat_text',
        description: 'Repeats a text a few times.',
        path: '/api/v1/services/repeat_text',
        scope: 'services:execute:repeat_text',
        cost: 3,
        input_schema: expect.objectContaining({ required: ['text'] }),
      }),
    ]);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await t.http().get('/openapi.json')).body;
    const op = doc.paths['/api/v1/services/repeat_text'].post;
    expect(op.operationId).toBe('repeat_text');
    expect(requestBodyOf(doc, op)).toMatchObject({ name: 'RepeatInput', required: true });
    expect(op.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RepeatResult',
    });
  });

  it.each(['modern', 'v1'] as const)('answers over MCP (%s client), titled', async (era) => {
    const client = await t.mcp(key, era);
    const { tools } = await client.listTools();
    expect(tools).toEqual([expect.objectContaining({ name: 'repeat_text', title: 'Repeat text' })]);
    const result = await client.callTool({ name: 'repeat_text', arguments: { text: 'do' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ text: 'dodo', caller: 'key' });
  });

  (fixtureToolsRegistered() ? it : it.skip)(
    'answers over MCP stdio, in the built CLI that registers it',
    async () => {
      const client = await connectStdio('modern', {
        command: process.execPath,
        args: [...builtEntry('cli'), 'mcp'],
        env: { ...t.env, MCP_API_KEY: key, PATH: process.env.PATH ?? '' },
        cwd: join(__dirname, '..', '..'),
      });
      try {
        const { tools } = await client.listTools();
        expect(tools.map(({ name }) => name)).toContain('repeat_text');
        const result = await client.callTool({ name: 'repeat_text', arguments: { text: 'mi' } });
        expect(JSON.parse(textOf(result))).toEqual({ text: 'mimi', caller: 'key' });
      } finally {
        await client.close();
      }
    },
  );
});
