/**
 * What `cli tools new` writes: a tool in the one-file form (defineTool) and its e2e spec. The
 * texts are formatted by the project's Prettier before they are written, where it has one
 * (tool-generator.ts), so a long name wraps as the project's other files do; without it they are
 * written as laid out here, valid as they are.
 */

import { toolClassPrefix } from '../../tools/index';

/**
 * Where a new tool is written: a checkout of the service (`src/tools/<name>/`, its line in
 * src/tools.ts, its spec on test/support/app.ts) or a team's project that depends on the package
 * (`src/tools/<name>.tool.ts` and `test/<name>.e2e-spec.ts`, importing the package and its kit).
 */
export type ToolLayout = 'checkout' | 'package';

/** The package's name, as a team's project imports it. */
export const PACKAGE = 'tool-invocation-service';

/** The new tool, as the options of `tools new` give it. */
export interface NewTool {
  layout: ToolLayout;
  /** `[a-z][a-z0-9_]*`: the tool's name, its folder and its path. */
  name: string;
  /** `async: 'allowed'` with a handler in steps (progress, signal); else `async: 'never'`. */
  async: boolean;
  cost: number;
  timeoutMs: number;
}

/** `word_count` → `Word count`: the title MCP clients show. */
export function titleOf(name: string): string {
  const words = name.split('_').filter(Boolean).join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** `30000` → `30_000`, as the project writes large numbers. */
function numeral(value: number): string {
  return value >= 10_000 ? String(value).replace(/\B(?=(\d{3})+$)/g, '_') : String(value);
}

/** The module's exported name: what src/tools.ts lists. */
export const moduleNameOf = (name: string) => `${toolClassPrefix(name)}ToolModule`;

/** Where the tool's file is, from the root of the project. */
export const toolFileOf = ({ name, layout }: Pick<NewTool, 'name' | 'layout'>) =>
  layout === 'checkout' ? `src/tools/${name}/${name}.tool.ts` : `src/tools/${name}.tool.ts`;

/** Where its spec is, from the root of the project. */
export const specFileOf = ({ name, layout }: Pick<NewTool, 'name' | 'layout'>) =>
  layout === 'checkout' ? `test/tools/${name}.e2e-spec.ts` : `test/${name}.e2e-spec.ts`;

/** What the tool's file imports `defineTool` and the decorators from. */
function toolImports(layout: ToolLayout): string {
  return layout === 'checkout'
    ? "import { ApiProperty } from '@nestjs/swagger';\nimport { defineTool, StringField } from '../index';"
    : `import { ApiProperty, defineTool, StringField } from '${PACKAGE}';`;
}

const SYNC_HANDLER = `  async: 'never', // answered in the request; 'allowed' lets a client run it in the background
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: ({ text }) => ({ words: text.split(/\\s+/).filter(Boolean).length }),`;

const ASYNC_HANDLER = `  async: 'allowed', // in the background when a client asks: Prefer: respond-async, an MCP task
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: async ({ text }, { progress, signal }) => {
    // The work in steps (here a word each): each reports its progress, and the wait rejects once
    // the call should stop (its deadline, a cancel, its client gone): pass \`signal\` on to fetch.
    const words = text.split(/\\s+/).filter(Boolean);
    for (let done = 0; done < words.length; done++) {
      progress(done, words.length, 'counting');
      await nextTurn(undefined, { signal });
    }
    progress(words.length, words.length, 'counted');
    return { words: words.length };
  },`;

/** The tool's one file: its DTOs and its definition with the handler (about 30 lines). */
export function toolSource(tool: NewTool): string {
  const prefix = toolClassPrefix(tool.name);
  return `${tool.async ? "import { setImmediate as nextTurn } from 'node:timers/promises';\n" : ''}${toolImports(tool.layout)}

export class ${prefix}Input {
  @StringField({ description: 'The text to work on.', minLength: 1, maxLength: 10_000, example: 'To be or not to be' })
  text: string;
}

export class ${prefix}Result {
  @ApiProperty({ type: 'integer', description: 'The words of the text.', example: 6 })
  words: number;
}

/**
 * Written by \`cli tools new\`: a tool that counts words, to be made the tool it is named for (its
 * fields, its handler, its description), then its e2e spec told what it answers.
 */
export const ${moduleNameOf(tool.name)} = defineTool({
  name: '${tool.name}',
  title: '${titleOf(tool.name)}',
  description: 'Count the words of a text.',
  input: ${prefix}Input,
  output: ${prefix}Result,
  cost: ${tool.cost}, // credits a call costs
  timeoutMs: ${numeral(tool.timeoutMs)}, // its deadline: still running then, a call is answered 504
${tool.async ? ASYNC_HANDLER : SYNC_HANDLER}
});
`;
}

const BACKGROUND_TEST = `
  it('runs in the background when asked, reporting its progress', async () => {
    const started = await call({ text: 'To be or not to be' }).set('Prefer', 'respond-async');
    expect(started.status).toBe(202);
    let view = started.body;
    while (view.status === 'queued' || view.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 50));
      view = (await t.http().get(started.headers.location).set(t.bearer(key))).body;
    }
    expect(view).toMatchObject({
      status: 'succeeded',
      result: { words: 6 },
      progress: { done: 6, total: 6 },
    });
  });
`;

/**
 * The tool's e2e spec: REST, a refusal, discovery, credits, MCP of both eras (on the test app).
 * Its comments name no tool: a long name leaves their lines as short as they are.
 */
export function specSource(tool: NewTool): string {
  const { name } = tool;
  const moduleName = moduleNameOf(name);
  // In a checkout, the test app of the jest project's store and adapter (test/support/app.ts).
  const [start, kit, from] =
    tool.layout === 'checkout'
      ? ['startApp', '../support/app', `../../src/tools/${name}/${name}.tool`]
      : ['startTestApp', `${PACKAGE}/testing`, `../src/tools/${name}.tool`];
  return `import { ${start}, type TestApp } from '${kit}';
import { ${moduleName} } from '${from}';

/**
 * The tool as \`cli tools new\` wrote it: it answers over REST, refuses a bad input, is listed by
 * discovery, costs its credits and answers over MCP with the official clients of both eras.
 */
describe('the ${name} tool (e2e)', () => {
  const COST = ${tool.cost};
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await ${start}({ tools: [${moduleName}] });
  });
  afterAll(() => t.close());

  // Calls are counted: each test gets a key of its own, allowed this tool only.
  beforeEach(async () => {
    key = await t.createKey({ scopes: ['services:execute:${name}'], plan: 'unlimited' });
  });

  const call = (body: object) => t.callTool('${name}', body, key);

  it('answers over REST', async () => {
    const res = await call({ text: 'To be or not to be' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ words: 6 });
  });

  it('refuses a bad input: 400 and what is wrong', async () => {
    const res = await call({ extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'text'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'extra'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
  });

  it('is listed by discovery', async () => {
    const res = await t.http().get('/api/v1/services').set(t.bearer(key));
    expect(res.status).toBe(200);
    expect(res.body.tools).toContainEqual(
      expect.objectContaining({
        name: '${name}',
        path: '/api/v1/services/${name}',
        scope: 'services:execute:${name}',
        cost: COST,
      }),
    );
  });

  it('costs its credits', async () => {
    const res = await call({ text: 'one' });
    expect(res.headers['x-quota-cost']).toBe(String(COST));
    expect((await call({ text: 'two' })).status).toBe(200);
    expect((await t.usage(key)).used).toBe(2 * COST);
  });
${tool.async ? BACKGROUND_TEST : ''}
  it.each(['modern', 'v1'] as const)('answers over MCP (the %s client)', async (era) => {
    const client = await t.mcp(key, era); // closed with the app
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('${name}');
    const result = await client.callTool({
      name: '${name}',
      arguments: { text: 'To be or not to be' },
    });
    expect(result.structuredContent).toEqual({ words: 6 });
  });
});
`;
}
