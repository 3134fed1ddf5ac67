import { Clock } from '../../src/kernel/common/clock';
import { UsageStore } from '../../src/limits/usage.store';
import { bearer, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';
import { McpClients, QUOTA_TEXT, startMcpApp, textOf } from '../support/mcp';

describe('MCP: quota and rate limit (e2e)', () => {
  let t: TestApp;
  let url: URL;
  const clients = new McpClients();
  const connect = (key?: string, headers?: Record<string, string>) =>
    clients.connect(url, key, headers);

  // The service's clock is the test's: a key's bucket refills only when the test moves it.
  const clock = new FakeClock(new Date());
  const tick = (ms: number) => clock.set(new Date(clock.now().getTime() + ms));

  beforeAll(async () => {
    ({ t, url } = await startMcpApp({
      configure: (b) => b.overrideProvider(Clock).useValue(clock),
    }));
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
    // Two a second: connecting (initialize and its notification) takes the whole bucket.
    const key = await t.createKey({ scope_template: 'standard', rate_limit: 2 });
    const client = await connect(key);
    const greetRest = async () =>
      (await t.http().post('/api/v1/services/greet').set(bearer(key)).send({ name: 'A' })).status;
    const greetMcp = () =>
      client.callTool({ name: 'greet', arguments: { name: 'A' } }).then(
        (result) => (result.isError ? 'error' : 'ok'),
        (error: Error) => error.message,
      );
    const REFUSED =
      '{"detail":"Rate limit exceeded: 2 requests per second. Retry after 1 second."}';
    for (const restFirst of [true, false]) {
      // A second later the bucket holds two again: the third call of a trio, by either, is refused.
      tick(1000);
      const first = restFirst ? await greetRest() : await greetMcp();
      const second = restFirst ? await greetMcp() : await greetRest();
      const third = restFirst ? await greetRest() : await greetMcp();
      if (restFirst) {
        expect([first, second, third]).toEqual([200, 'ok', 429]);
      } else {
        expect([first, second]).toEqual(['ok', 200]);
        // Over HTTP the request is refused as a whole: HTTP 429, before any tool runs.
        expect(third).toContain(REFUSED);
      }
    }
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
