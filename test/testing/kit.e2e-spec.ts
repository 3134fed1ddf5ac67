import { connect } from 'node:net';
import { startTestApp, TestApp } from '../../src/testing';
import { RepeatToolModule } from '../fixture-tool/repeat-text.tool';

/** Whether something accepts connections on a loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(Boolean(socket.end())));
    socket.once('error', () => resolve(false));
  });
}

/**
 * The test kit (src/testing/, the package's `/testing` entry) as a team's suite uses it: it starts
 * the real app with the team's tools, on SQLite or on a redis-server it starts itself, on either
 * adapter, with a configuration of the suite's; makes keys and runs; calls over REST and MCP of
 * both eras; reads usage and the ledger; and closes everything it started. It chooses its store
 * itself, so it runs once, not in each Redis project.
 */
describe.each([
  { store: 'sqlite', adapter: 'express' },
  { store: 'redis', adapter: 'fastify' },
] as const)('the test kit on $store, $adapter (e2e)', ({ store, adapter }) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      tools: [RepeatToolModule],
      store,
      adapter,
      config: 'limits:\n  plans:\n    team: {daily_limit: 100, rate_limit: 100}\n',
    });
  });
  afterAll(() => t.close());

  it('runs on the store asked for, with the configuration given', async () => {
    expect(Boolean(t.env.REDIS_URL)).toBe(store === 'redis');
    const key = await t.createKeyWithId({ plan: 'team', scopes: ['services:execute'] });
    const usage = await t.usage(key.key);
    expect(usage).toMatchObject({ used: 0, daily_limit: 100 });
    const health = await t.http().get('/health');
    expect(health.body).toMatchObject({ status: 'ok' });
    expect(health.headers['x-powered-by']).toBeUndefined();
  });

  it('calls a tool over REST and MCP of both eras, and reads the usage they counted', async () => {
    const key = await t.createKey({ plan: 'team', scopes: ['services:execute'] });
    const rest = await t.callTool('repeat_text', { text: 'ab', times: 1 }, key);
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual({ text: 'ab', caller: 'key' });
    for (const era of ['modern', 'legacy', 'v1'] as const) {
      const client = await t.mcp(key, era);
      const result = await client.callTool({ name: 'repeat_text', arguments: { text: 'x' } });
      expect(result.structuredContent).toEqual({ text: 'xx', caller: 'key' });
    }
    expect(await t.usage(key)).toMatchObject({ used: 12, daily_limit: 100 });
  });

  it('makes a run, whose calls count against its budget and are in the ledger', async () => {
    const key = await t.createKey({ scopes: ['services:execute'] });
    const run = await t.createRun(key, { budget: 5, label: 'kit' });
    expect(run.token).toMatch(/^sk_run_[0-9a-f]{64}$/);
    const first = await t.callTool('repeat_text', { text: 'r' }, run.token);
    expect(first.status).toBe(200);
    expect(first.headers['x-run-budget-remaining']).toBe('2');
    const second = await t.callTool('repeat_text', { text: 'r' }, run.token);
    expect(second.status).toBe(402);
    expect(second.body).toEqual({ detail: 'Run budget exhausted (3/5).' });
    const entries = await t.ledger({ run: run.id });
    expect(entries).toEqual([
      expect.objectContaining({ run_id: run.id, tool: 'repeat_text', credits: 3, kind: 'charge' }),
    ]);
  });
});

describe('the test kit closes what it started (e2e)', () => {
  it('stops the redis-server it started', async () => {
    const t = await startTestApp({ tools: [RepeatToolModule], store: 'redis' });
    const port = Number(new URL(t.env.REDIS_URL).port);
    expect(await listening(port)).toBe(true);
    await t.close();
    expect(await listening(port)).toBe(false);
  });

  it('uses the Redis the environment names rather than starting one', async () => {
    const first = await startTestApp({ tools: [RepeatToolModule], store: 'redis' });
    try {
      const t = await startTestApp({
        tools: [RepeatToolModule],
        store: 'redis',
        env: { REDIS_URL: first.env.REDIS_URL, REDIS_KEY_PREFIX: 'kit-shared:' },
      });
      expect(t.env.REDIS_URL).toBe(first.env.REDIS_URL);
      await t.close();
      // Closing the second app left the first one's Redis running.
      expect((await first.http().get('/health')).status).toBe(200);
    } finally {
      await first.close();
    }
  });
});
