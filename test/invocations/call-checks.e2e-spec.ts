import { Injectable, Module } from '@nestjs/common';
import { ApiError } from '../../src/kernel/errors/api-error';
import { CallCheck } from '../../src/invocations';
import type { Call } from '../../src/invocations';
import type { Caller } from '../../src/subjects';
import { bearer, startApp, TestApp, listenOnLoopback } from '../support/app';
import { connectHttp, textOf } from '../support/mcp-clients';
import { startStdioMcp } from '../support/stdio-mcp';

const REFUSAL = 'Refused by the test check: greet is closed to this key';

/**
 * A check registered once, by a module of its own: it refuses greet to keys named `closed`,
 * after the scope and before the rate limit.
 */
@CallCheck()
@Injectable()
class ClosedGreetCheck implements CallCheck {
  check(call: Call, caller: Caller): void {
    if (call.tool === 'greet' && caller.kind === 'key' && caller.name === 'closed') {
      throw new ApiError(403, REFUSAL);
    }
  }
}

@Module({ providers: [ClosedGreetCheck] })
class ClosedGreetModule {}

describe('the checks of a call, one list for REST and MCP (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ imports: [ClosedGreetModule] });
  });
  afterAll(() => t.close());

  /** Keys of each test's own, so that what one test counts is its own calls. */
  const keys = async () => ({
    closed: await t.createKeyWithId({ name: 'closed', scope_template: 'standard' }),
    open: await t.createKey({ name: 'open', scope_template: 'standard' }),
  });

  const usedToday = async (key: string) =>
    (await t.http().get('/api/v1/usage').set(bearer(key))).body.used as number;

  it('blocks the call over REST, in its place in the order', async () => {
    const { closed, open } = await keys();
    const res = await t
      .http()
      .post('/api/v1/services/greet')
      .set(bearer(closed.key))
      .send({ name: 'Ada' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: REFUSAL });
    // Before the rate limit and the quota: nothing was counted.
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    expect(await usedToday(closed.key)).toBe(0);
    const other = await t
      .http()
      .post('/api/v1/services/greet')
      .set(bearer(open))
      .send({ name: 'Ada' });
    expect(other.status).toBe(200);
    const config = await t
      .http()
      .post('/api/v1/services/config_show')
      .set(bearer(closed.key))
      .send({});
    expect(config.status).toBe(200);
  });

  it.each(['v1', 'modern'] as const)(
    'blocks the same call over MCP on HTTP (%s client)',
    async (kind) => {
      const { closed } = await keys();
      const port = await listenOnLoopback(t.app);
      const client = await connectHttp(kind, new URL(`http://127.0.0.1:${port}/mcp`), closed.key);
      try {
        if (kind === 'modern') expect(client.version).toBe('2026-07-28');
        const refused = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toBe(REFUSAL);
        const config = await client.callTool({ name: 'config_get', arguments: { key: 'server' } });
        expect(config.isError).toBeFalsy();
      } finally {
        await client.close();
      }
    },
  );

  it.each(['v1', 'modern'] as const)(
    'blocks the same call over MCP on stdio, served in-process (%s client)',
    async (kind) => {
      const { closed, open } = await keys();
      const stdio = await startStdioMcp({
        dataDir: t.dataDir,
        key: closed.key,
        imports: [ClosedGreetModule],
        client: kind,
      });
      try {
        const refused = await stdio.client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toBe(REFUSAL);
      } finally {
        await stdio.close();
      }
      const allowed = await startStdioMcp({
        dataDir: t.dataDir,
        key: open,
        imports: [ClosedGreetModule],
        client: kind,
      });
      try {
        const ok = await allowed.client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
        expect(ok.isError).toBeFalsy();
        expect(ok.structuredContent).toEqual({ message: 'Hello, Ada!', times: 1 });
      } finally {
        await allowed.close();
      }
    },
  );
});
