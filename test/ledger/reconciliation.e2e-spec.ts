import request from 'supertest';
import { bearer, listenOnLoopback, startApp, tempDataDir, TestApp } from '../support/app';
import { writeConfigFile } from '../support/config';
import { narrowGate, RuntimeToolsModule } from '../support/runtime-tools.module';
import { ledgerOf, reconcile } from '../support/ledger-reconciliation';

/** What a call of `slow` costs on the `pro` plan here: its charges and refunds stand out. */
const SLOW = 5;
/**
 * `slow` and `background` (always a long-running call: an MCP task) run one call at a time on each
 * instance, and queue the others (capacity alone decides: no fair share's 503).
 */
const CONFIG = `tools:
  slow:
    timeout_ms: 600000
    concurrency: 1
    queue: 40
    per_caller_share: 1
  background:
    timeout_ms: 600000
    concurrency: 1
    queue: 40
    per_caller_share: 1
limits:
  plans:
    pro:
      tool_costs:
        slow: ${SLOW}
`;
const MODERN = '2026-07-28';
const GREET = '/api/v1/services/greet';
const SLOW_PATH = '/api/v1/services/slow';
const TASKS = 'io.modelcontextprotocol/tasks';

/** One request of the burst, as its client saw it. */
interface Sent {
  /** Our X-Request-Id: the ledger entry of a counted call carries it. */
  requestId: string;
  /** Which caller (a key's label, or a run's). */
  who: string;
  transport: 'rest' | 'mcp';
  status: number;
  /** Whether the service counted it: an answer of the tool, a 202, a 400 of its input. */
  charged: boolean;
  /** The detail of a refusal (REST's {detail}, MCP's isError text). */
  refused?: string;
  /** A long-running call's id (202). */
  invocation?: string;
  replayed?: boolean;
}

/** Reads until `done` holds of the value, every 100 ms, for at most `ms`; the last value read. */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A small deterministic shuffle (the burst's order is mixed, the same every run). */
function shuffled<T>(items: T[]): T[] {
  let seed = 0x2f6b;
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Exact reconciliation on two instances sharing one store (the same SQLite file; one Redis in
 * e2e-redis; the Cluster in the matrix): 200 requests at once spread over both, mixing REST and MCP
 * (both eras), long-running calls (REST's `Prefer: respond-async`, MCP tasks), idempotent retries
 * (replayed on the other instance), refusals (401, 403, 402 of the day, the month and a run's
 * budget, 429, 503 at capacity), charged 400s of bad input, and refunds (a run ended with its
 * long-running calls queued on both instances, ended through one). Then for every key the
 * ledger's sums equal its counters per UTC day, tool and month; for every run its entries equal
 * its `spent` and `spent_by_tool`; and each counted request has exactly one charge entry, carrying
 * its X-Request-Id, while no refusal and no replay has one.
 */
describe('the ledger reconciles with the counters (e2e)', () => {
  let a: TestApp;
  let b: TestApp;
  const urls: string[] = [];

  beforeAll(async () => {
    const dataDir = tempDataDir();
    const env = { CONFIG_FILE: writeConfigFile(dataDir, CONFIG), SHUTDOWN_DRAIN_MS: '100' };
    a = await startApp({ dataDir, env, imports: [RuntimeToolsModule] });
    b = await startApp({ dataDir, env, imports: [RuntimeToolsModule] });
    urls.push(`http://127.0.0.1:${await listenOnLoopback(a.app)}`);
    urls.push(`http://127.0.0.1:${await listenOnLoopback(b.app)}`);
    // `narrow` (one slot, one place in the queue on each instance) holds its calls at the gate.
    narrowGate.close();
  });
  afterAll(async () => {
    narrowGate.release();
    await a?.close();
    await b?.close();
  });

  it('after 200 concurrent calls of every kind on two instances, the ledger equals the counters of every key and run', async () => {
    const admin = a.adminKey;
    const pro = (body: Record<string, unknown>) =>
      a.createKeyWithId({
        plan: 'pro',
        scope_template: 'standard',
        daily_limit: 1_000_000,
        monthly_limit: 10_000_000,
        rate_limit: 1000,
        ...body,
      });
    const keys = {
      wide: await pro({ name: 'wide', external_id: 'cus_wide' }),
      tight: await pro({ name: 'tight', daily_limit: 12 }),
      monthly: await pro({ name: 'monthly', monthly_limit: 9 }),
      throttled: await pro({ name: 'throttled', rate_limit: 1 }),
      greetOnly: await a.createKeyWithId({
        name: 'greet-only',
        plan: 'pro',
        scopes: ['services:execute:greet'],
        monthly_limit: 10_000_000,
      }),
      parent: await pro({ name: 'parent', external_id: 'cus_parent' }),
      holder: await pro({ name: 'holder' }),
    };
    const newRun = async (budget: number) => {
      const res = await request(urls[1])
        .post('/api/v1/runs')
        .set(bearer(keys.parent.key))
        .send({ budget })
        .expect(201);
      return { id: res.body.id as string, token: res.body.token as string };
    };
    const budgeted = await newRun(9);
    const refunded = await newRun(1000);

    // The holder's calls take the one slot of `slow` and of `background` on each instance: the
    // burst's calls of either all wait in its queue, where ending their run refunds them.
    for (const url of urls) {
      for (const path of [SLOW_PATH, '/api/v1/services/background']) {
        const held = await request(url)
          .post(path)
          .set(bearer(keys.holder.key))
          .set('Prefer', 'respond-async')
          .send({ ms: 600_000, label: 'holder' });
        expect([held.status, held.body.status]).toEqual([202, 'running']);
      }
    }

    let n = 0;
    const rid = () => `rc-${(n++).toString().padStart(4, '0')}`;
    const restCall = async (
      who: string,
      token: string,
      url: string,
      path: string,
      body: object,
      headers: Record<string, string> = {},
    ): Promise<Sent> => {
      const requestId = rid();
      const res = await request(url)
        .post(path)
        .set(bearer(token))
        .set('X-Request-Id', requestId)
        .set(headers)
        .send(body);
      const replayed = res.headers['idempotent-replayed'] === 'true';
      return {
        requestId,
        who,
        transport: 'rest',
        status: res.status,
        // A 400 of the tool's input is charged: credits come before body validation.
        charged: ((res.status === 200 || res.status === 202) && !replayed) || res.status === 400,
        refused: res.status >= 300 ? (res.body as { detail?: string }).detail : undefined,
        invocation: res.status === 202 ? (res.body.id as string) : undefined,
        replayed,
      };
    };
    const mcpCall = async (
      who: string,
      token: string,
      url: string,
      era: '2025' | 'modern',
      tool: string,
      args: object,
      meta: Record<string, unknown> = {},
      tasks = false,
    ): Promise<Sent & { result?: Record<string, unknown> }> => {
      const requestId = rid();
      const modern = era === 'modern';
      const res = await request(url)
        .post('/mcp')
        .set(bearer(token))
        .set('X-Request-Id', requestId)
        .set('Accept', 'application/json, text/event-stream')
        .set('MCP-Protocol-Version', modern ? MODERN : '2025-06-18')
        .set(modern ? { 'Mcp-Method': 'tools/call', 'Mcp-Name': tool } : {})
        .send({
          jsonrpc: '2.0',
          id: requestId,
          method: 'tools/call',
          params: {
            name: tool,
            arguments: args,
            _meta: {
              ...meta,
              ...(modern
                ? {
                    'io.modelcontextprotocol/protocolVersion': MODERN,
                    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
                    'io.modelcontextprotocol/clientCapabilities': tasks
                      ? { extensions: { [TASKS]: {} } }
                      : {},
                  }
                : {}),
            },
          },
        });
      const result = (res.body as { result?: Record<string, unknown> }).result;
      const isError = result !== undefined && result.isError === true;
      const text = isError
        ? (result.content as { text: string }[])[0].text
        : (res.body as { detail?: string }).detail;
      return {
        requestId,
        who,
        transport: 'mcp',
        status: res.status,
        // Bad arguments are charged over MCP too (an isError result naming the field).
        charged:
          res.status === 200 &&
          result !== undefined &&
          (!isError || (typeof text === 'string' && text.includes('Input should be'))),
        refused: isError || res.status !== 200 ? text : undefined,
        invocation: result?.resultType === 'task' ? (result.taskId as string) : undefined,
        result,
      };
    };

    const on = (i: number) => urls[i % 2];
    const greet = (i: number) => ({ name: `caller ${i}` });
    const tasks: (() => Promise<Sent[]>)[] = [];
    const one = (f: () => Promise<Sent>) => tasks.push(async () => [await f()]);
    const times = (count: number, f: (i: number) => Promise<Sent>) => {
      for (let i = 0; i < count; i++) one(() => f(i));
    };
    const { wide, tight, monthly, throttled, greetOnly } = keys;
    // 18 REST and 40 MCP greets (20 of each era) of a key no limit refuses.
    times(18, (i) => restCall('wide', wide.key, on(i), GREET, greet(i)));
    times(20, (i) => mcpCall('wide', wide.key, on(i), '2025', 'greet', greet(i)));
    times(20, (i) => mcpCall('wide', wide.key, on(i + 1), 'modern', 'greet', greet(i)));
    // 10 REST idempotent pairs, the retry on the other instance (20 requests): one charge each.
    for (let i = 0; i < 10; i++) {
      tasks.push(async () => {
        const headers = { 'Idempotency-Key': `rest-pair-${i}` };
        const first = await restCall('wide', wide.key, on(i), GREET, greet(i), headers);
        const retry = await restCall('wide', wide.key, on(i + 1), GREET, greet(i), headers);
        return [first, retry];
      });
    }
    // 4 MCP idempotent pairs (8 requests), both eras: the retry replays the first result.
    for (let i = 0; i < 4; i++) {
      tasks.push(async () => {
        const era = i % 2 ? 'modern' : '2025';
        const meta = { 'io.tis/idempotency-key': `mcp-pair-${i}` };
        const first = await mcpCall('wide', wide.key, on(i), era, 'greet', greet(i), meta);
        const retry = await mcpCall('wide', wide.key, on(i + 1), era, 'greet', greet(i), meta);
        expect(retry.result?.content).toEqual(first.result?.content);
        // The replay is not counted again: no quota in its result (and one entry, below).
        expect((first.result?._meta as Record<string, unknown>)['io.tis/quota']).toBeDefined();
        expect(
          (retry.result?._meta as Record<string, unknown> | undefined)?.['io.tis/quota'],
        ).toBeUndefined();
        return [first, { ...retry, charged: false, replayed: true }];
      });
    }
    // 20 of a key with 12 credits a day (12 REST, 8 MCP): 12 counted, 8 refused 402.
    times(12, (i) => restCall('tight', tight.key, on(i), GREET, greet(i)));
    times(8, (i) => mcpCall('tight', tight.key, on(i), 'modern', 'greet', greet(i)));
    // 12 of a key with 9 credits a month: 9 counted, 3 refused 402.
    times(12, (i) => restCall('monthly', monthly.key, on(i), GREET, greet(i)));
    // 12 of a key allowed one call a second: 429s.
    times(8, (i) => restCall('throttled', throttled.key, on(i), GREET, greet(i)));
    times(4, (i) => mcpCall('throttled', throttled.key, on(i), '2025', 'greet', greet(i)));
    // 6 with a token no key has: 401.
    const nobody = `sk_${'0'.repeat(64)}`;
    times(4, (i) => restCall('nobody', nobody, on(i), GREET, greet(i)));
    times(2, (i) => mcpCall('nobody', nobody, on(i), 'modern', 'greet', greet(i)));
    // A key that may call greet only: 4 greets counted, 6 calls of `slow` refused 403.
    times(4, (i) => restCall('greet-only', greetOnly.key, on(i), GREET, greet(i)));
    times(4, (i) => restCall('greet-only', greetOnly.key, on(i), SLOW_PATH, { ms: 1 }));
    times(2, (i) => mcpCall('greet-only', greetOnly.key, on(i), '2025', 'slow', { ms: 1 }));
    // Bad input, counted: 4 over REST (400), 2 over MCP (an isError result).
    times(4, (i) => restCall('wide', wide.key, on(i), GREET, { name: 123 + i }));
    times(2, (i) => mcpCall('wide', wide.key, on(i), 'modern', 'greet', { name: [i] }));
    // A run of 9 credits: 14 greets (8 REST, 6 MCP), 9 counted, 5 refused 402.
    times(8, (i) => restCall('budgeted', budgeted.token, on(i), GREET, greet(i)));
    times(6, (i) => mcpCall('budgeted', budgeted.token, on(i), '2025', 'greet', greet(i)));
    // A run whose 10 long-running calls wait in the queue (refunded when it ends) and 4 greets.
    const async = { Prefer: 'respond-async' };
    times(10, (i) =>
      restCall(
        'refunded',
        refunded.token,
        on(i),
        SLOW_PATH,
        { ms: 600_000, label: `r${i}` },
        async,
      ),
    );
    times(4, (i) => restCall('refunded', refunded.token, on(i), GREET, greet(i)));
    // And 4 MCP tasks of `background` (2026-07-28, the tasks extension declared), queued too.
    const task = { ms: 600_000, label: 'task' };
    times(4, (i) =>
      mcpCall('refunded', refunded.token, on(i), 'modern', 'background', task, {}, true),
    );
    // 2 MCP tasks of the key itself, queued (they stay charged).
    times(2, (i) => mcpCall('wide', wide.key, on(i), 'modern', 'background', task, {}, true));
    // 6 long-running calls of the key itself, queued (they stay charged).
    times(6, (i) => restCall('wide', wide.key, on(i), SLOW_PATH, { ms: 600_000 }, async));
    // 8 long-running calls of `narrow` (4 an instance): one runs and one waits on each, the
    // others are refused 503 at capacity.
    times(8, (i) => restCall('wide', wide.key, on(i), '/api/v1/services/narrow', {}, async));

    const sent = (await Promise.all(shuffled(tasks).map((task) => task()))).flat();
    expect(sent).toHaveLength(200);
    expect(new Set(sent.map((s) => s.requestId)).size).toBe(200);

    // Each kind of refusal happened, and exactly what the limits allow was counted.
    const of = (who: string) => sent.filter((s) => s.who === who);
    const count = (list: Sent[], p: (s: Sent) => boolean) => list.filter(p).length;
    expect(count(of('tight'), (s) => s.charged)).toBe(12);
    expect(
      count(of('tight'), (s) => /^Daily request limit exceeded \(12\/12\)/.test(s.refused ?? '')),
    ).toBe(8);
    expect(count(of('monthly'), (s) => s.charged)).toBe(9);
    expect(
      count(of('monthly'), (s) => /^Monthly request limit exceeded \(9\/9\)/.test(s.refused ?? '')),
    ).toBe(3);
    expect(count(of('budgeted'), (s) => s.charged)).toBe(9);
    expect(count(of('budgeted'), (s) => s.refused === 'Run budget exhausted (9/9).')).toBe(5);
    expect(count(of('throttled'), (s) => s.status === 429)).toBeGreaterThan(0);
    expect(count(of('throttled'), (s) => s.charged)).toBeGreaterThan(0);
    expect(of('nobody').map((s) => s.status)).toEqual(Array(6).fill(401));
    expect(count(of('greet-only'), (s) => s.charged)).toBe(4);
    expect(count(of('greet-only'), (s) => s.status === 403)).toBe(6);
    expect(count(sent, (s) => s.status === 503)).toBe(4);
    expect(count(sent, (s) => s.replayed === true)).toBe(14);
    expect(count(sent, (s) => s.status === 400)).toBe(4);
    const queuedOfRun = of('refunded').filter((s) => s.invocation !== undefined);
    expect(queuedOfRun.filter((s) => s.status === 202)).toHaveLength(10);
    expect(queuedOfRun.filter((s) => s.transport === 'mcp')).toHaveLength(4);

    // Ending the run cancels its queued calls and refunds them (on whichever instance holds them).
    await request(urls[0])
      .delete(`/api/v1/runs/${refunded.id}`)
      .set(bearer(keys.parent.key))
      .expect(200);
    const refunds = await until(
      () => ledgerOf(urls[1], admin, { subject: `key:${keys.parent.id}`, run: refunded.id }),
      (entries) => entries.filter((e) => e.kind === 'refund').length >= queuedOfRun.length,
      30_000,
    );
    expect(
      refunds
        .filter((e) => e.kind === 'refund')
        .map((e) => e.invocation_id)
        .sort(),
    ).toEqual(queuedOfRun.map((s) => s.invocation).sort());

    const entries = await reconcile(
      urls[0],
      admin,
      Object.values(keys),
      [budgeted, refunded].map((run) => ({ id: run.id, parent: keys.parent.id })),
    );
    // The counters as the other instance reads them are the same.
    expect(await reconcile(urls[1], admin, Object.values(keys), [])).toHaveLength(entries.length);

    // Each counted request has exactly one charge, carrying its request id; no refusal, no replay
    // has any (the holders' four calls aside).
    const charges = entries.filter((e) => e.kind === 'charge' && e.request_id?.startsWith('rc-'));
    expect(charges.map((e) => e.request_id).sort()).toEqual(
      sent
        .filter((s) => s.charged)
        .map((s) => s.requestId)
        .sort(),
    );
    expect(entries.filter((e) => e.kind === 'charge')).toHaveLength(charges.length + 4);
    for (const charge of charges) {
      const s = sent.find((x) => x.requestId === charge.request_id)!;
      expect({ id: s.requestId, transport: charge.transport }).toEqual({
        id: s.requestId,
        transport: s.transport,
      });
    }
    // The refunds are those of the ended run, nothing else, each over its charge's transport.
    const refundEntries = entries.filter((e) => e.kind === 'refund');
    expect(refundEntries.map((e) => [e.invocation_id, e.transport, e.run_id]).sort()).toEqual(
      queuedOfRun.map((s) => [s.invocation, s.transport, refunded.id]).sort(),
    );
    // What the run spent at last: its greets; its long-running calls were given back.
    const run = await request(urls[1]).get(`/api/v1/runs/${refunded.id}`).set(bearer(admin));
    expect(run.body.spent).toBe(
      count(of('refunded'), (s) => s.charged && s.invocation === undefined),
    );
  }, 120_000);
});
