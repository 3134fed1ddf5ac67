import { UsageStore } from '../src/store/usage/usage.store';
import { bearer, TestApp } from './support/app';
import { CallResult, McpClients, QUOTA_TEXT, startMcpApp, textOf } from './support/mcp';

describe('MCP: quota and rate limit (e2e)', () => {
  let t: TestApp;
  let url: URL;
  const clients = new McpClients();
  const connect = (key?: string, headers?: Record<string, string>) =>
    clients.connect(url, key, headers);

  beforeAll(async () => {
    ({ t, url } = await startMcpApp());
  });
  afterEach(() => clients.closeAll());
  afterAll(() => t.close());

  it('counts each tools/call once against the quota, and nothing else: the third call of a 2-a-day key is 402', async () => {
    // A rate limit the test cannot reach: only the quota is under test here.
    const key = await t.createKey({
      scope_template: 'standard',
      daily_limit: 2,
      rate_limit: 100,
    });
    const client = await connect(key);
    await client.listTools();
    await client.listTools();
    for (const name of ['A', 'B']) {
      const ok = await client.callTool({ name: 'greet', arguments: { name } });
      expect(ok.isError).toBeFalsy();
    }
    const refused = await client.callTool({ name: 'greet', arguments: { name: 'C' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(QUOTA_TEXT);
    expect(textOf(refused)).toMatch(/ Retry after (1 second|\d+ seconds)\.$/);

    const usage = await t.http().get('/api/v1/usage').set(bearer(key));
    expect(usage.body).toMatchObject({ daily_limit: 2, used: 2, remaining: 0 });
    const rest = await t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'D' });
    expect(rest.status).toBe(402);
    expect(rest.body.detail).toMatch(QUOTA_TEXT);
  });

  it('counts a call with bad arguments, as REST does', async () => {
    const key = await t.createKey({ scope_template: 'standard', daily_limit: 1 });
    const client = await connect(key);
    const invalid = await client.callTool({ name: 'greet', arguments: { name: 'A', times: 0 } });
    expect(invalid.isError).toBe(true);
    const refused = await client.callTool({ name: 'greet', arguments: { name: 'A' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^Daily request limit exceeded \(1\/1\)/);
  });

  it('shares one per-second budget between REST and MCP', async () => {
    // Two a second: connecting (initialize and its notification) fits in a window.
    const key = await t.createKey({ scope_template: 'standard', rate_limit: 2 });
    const client = await connect(key);
    const greetRest = () =>
      t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'A' });
    const greetMcp = () =>
      client
        .callTool({ name: 'greet', arguments: { name: 'A' } })
        .catch((error: unknown) => error as Error);
    // The third call of a trio must be refused unless a whole window passed between the first and it.
    let checked = 0;
    for (let attempt = 0; attempt < 5 && checked < 2; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const restFirst = attempt % 2 === 0;
      const started = Date.now();
      const first = restFirst ? await greetRest() : await greetMcp();
      const second = restFirst ? await greetMcp() : await greetRest();
      const third = restFirst ? await greetRest() : await greetMcp();
      if (Date.now() - started >= 1000) continue;
      checked++;
      if (restFirst) {
        expect((first as { status: number }).status).toBe(200);
        expect((second as CallResult).isError).toBeFalsy();
        expect((third as { status: number }).status).toBe(429);
      } else {
        expect((first as CallResult).isError).toBeFalsy();
        expect((second as { status: number }).status).toBe(200);
        // Over HTTP the request is refused as a whole: HTTP 429, before any tool runs.
        expect(third).toBeInstanceOf(Error);
        expect((third as Error).message).toContain(
          '{"detail":"Rate limit exceeded: 2 requests per second. Retry after 1 second."}',
        );
      }
    }
    expect(checked).toBe(2);
  });

  it('counts every JSON-RPC message against the rate limit (not the quota): the handshake, its notification and tools/list too', async () => {
    const { key, id } = await t.createKeyWithId({ scope_template: 'standard', rate_limit: 3 });
    const client = await connect(key); // initialize: 1, notifications/initialized: 2
    await client.listTools(); // 3
    await expect(client.callTool({ name: 'greet', arguments: { name: 'A' } })).rejects.toThrow(
      /Rate limit exceeded: 3 requests per second/,
    );
    // Nothing reached the quota (read from the store: the key's own budget is spent).
    const today = new Date().toISOString().slice(0, 10);
    expect(await t.app.get(UsageStore).getUsage(id, today)).toBe(0);
  });
});
