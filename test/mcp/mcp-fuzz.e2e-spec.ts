/**
 * Property-based fuzzing of POST /mcp (fast-check), over raw HTTP/1.1 sockets like the REST fuzz
 * (fuzz.e2e-spec.ts) and with its harness, so every answer is checked for the same properties: an
 * answer, never a 5xx (the store is up, so not even 503) nor a JSON-RPC -32603, errors as `{detail}`
 * or a JSON-RPC error, no uncaught exception, /health still 200, and after each property greet
 * still works (over REST and over MCP), nothing polluted, the configuration unchanged.
 *
 * On top: nothing counted that did not run. After every request the key's rate budget and quota
 * are read back: the rate limit counted each JSON-RPC message of the POST (notifications too; one
 * for a POST of none), all or nothing, nothing for a POST refused before the count (a batch with
 * two requests of one id, authentication, scope, the front door); the quota counted exactly the
 * tools/calls that reached the quota step (support/fuzz/mcp-accounts.ts).
 *
 * What is sent (support/fuzz/mcp.ts): single messages and batches of known, unknown and junk
 * methods, ids of every JSON type (repeated, null, objects), params of every shape, tool arguments
 * from the REST body generators (support/fuzz/bodies.ts), `_meta` small, at the 64-entry limit,
 * huge, nested, not an object, with own `__proto__` keys, idempotency keys valid (never sent
 * twice) and not; and headers: Accept, MCP-Protocol-Version, Content-Type, Origin, and callers with
 * the main key, a small key (30 messages in all, 5 calls a day: 429s and 402s), a read-only key, a
 * key that may call greet only, a bad key, none, two Authorization headers. And the 2026-07-28
 * revision: the envelope in `_meta` (right, wrong, junk), MCP-Protocol-Version, Mcp-Method and
 * Mcp-Name agreeing with the body or not, server/discover and the tasks methods.
 *
 * Bounded like the REST fuzz: a fixed seed (FUZZ_SEED), 500 runs a property and a time limit,
 * FUZZ_REPORT=all to list every distinct failure. Runs where the REST fuzz runs, on SQLite only
 * (the `fuzz\.e2e-spec\.ts$` patterns of jest.config.js and jest.matrix.config.js match this file):
 * it tests the protocol and the counting, not the store.
 */
import fc from 'fast-check';
import { Clock } from '../../src/kernel/common/clock';
import { FakeClock } from '../support/fake-clock';
import type { Outcome } from '../support/fuzz/client';
import { Fuzzer } from '../support/fuzz/harness';
import { MAIN_RATE_LIMIT, McpAccounts } from '../support/fuzz/mcp-accounts';
import {
  batch,
  CLIENT_HEADERS,
  FRESH_IDEMPOTENCY_KEY,
  freshKeys,
  mcpFuzzBody,
  mcpHeaders,
  McpFuzzRequest,
  message,
  modernPost,
  Persona,
  persona,
} from '../support/fuzz/mcp';

/** The service's clock stands still: a key's rate bucket only ever falls, so every count is exact. */
const clock = new FakeClock(new Date());

describe('fuzzing POST /mcp (e2e)', () => {
  const fuzzer = new Fuzzer(
    { PLAN_UNLIMITED_RATE_LIMIT: String(MAIN_RATE_LIMIT) },
    { configure: (b) => b.overrideProvider(Clock).useValue(clock) },
  );
  const accounts = new McpAccounts(fuzzer);
  let sent = 0;

  beforeAll(async () => {
    await fuzzer.start();
    await accounts.start();
  });
  afterAll(() => fuzzer.close());

  /** A POST /mcp of `body` by `who` with `headers` (Authorization comes from `who`). */
  const post = (who: Persona, headers: [string, string][], body: string): McpFuzzRequest => {
    const { key, headers: authorization } = accounts.authorization(who);
    return {
      method: 'POST',
      target: '/mcp',
      headers: [...authorization, ...headers],
      body,
      persona: who,
      key,
    };
  };

  const checks = {
    // Every idempotency key is new when sent, shrinking included: a call is never a replay.
    prepare: (req: McpFuzzRequest) => ({
      ...req,
      body: freshKeys(req.body, () => `fuzz-${++sent}`),
    }),
    verify: (req: McpFuzzRequest, outcome: Outcome) => accounts.verify(req, outcome),
  };

  /** greet over MCP with the main key: 200, its result, and counted once (verify). */
  async function expectValidCall(): Promise<void> {
    const req = post(
      'main',
      CLIENT_HEADERS,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'greet',
          arguments: { name: 'Alice' },
          _meta: { 'io.tis/idempotency-key': FRESH_IDEMPOTENCY_KEY },
        },
      }),
    );
    const sentReq = checks.prepare(req);
    const res = await fuzzer.answer(sentReq);
    expect({ status: res.status, body: JSON.parse(res.body) as unknown }).toEqual({
      status: 200,
      body: {
        jsonrpc: '2.0',
        id: 1,
        result: {
          _meta: { 'io.tis/quota': expect.objectContaining({ cost: 1, used: expect.any(Number) }) },
          content: [{ type: 'text', text: '{"message":"Hello, Alice!","times":1}' }],
          structuredContent: { message: 'Hello, Alice!', times: 1 },
        },
      },
    });
    expect(await accounts.verify(sentReq, { kind: 'answer', res })).toEqual([]);
  }

  it('survives any JSON-RPC message, counting exactly what ran', async () => {
    const requests = fc
      .tuple(
        persona,
        fc.oneof(
          { weight: 2, arbitrary: message({ wellFormed: true }) },
          { weight: 1, arbitrary: message() },
        ),
      )
      .map(([who, m]) => post(who, CLIENT_HEADERS, JSON.stringify(m)));
    await fuzzer.check(requests, 500, checks);
    await fuzzer.expectUnharmed();
    await expectValidCall();
  });

  it('survives any batch (repeated ids, notifications, hundreds of messages), all or nothing', async () => {
    const requests = fc
      .tuple(persona, batch)
      .map(([who, b]) => post(who, CLIENT_HEADERS, JSON.stringify(b)));
    await fuzzer.check(requests, 500, checks);
    await fuzzer.expectUnharmed();
    await expectValidCall();
  });

  it('survives any 2026-07-28 message (envelope, Mcp-* headers, server/discover, tasks), counting exactly what ran', async () => {
    const requests = fc
      .tuple(persona, modernPost)
      .map(([who, { headers, body }]) => post(who, headers, body));
    await fuzzer.check(requests, 500, checks);
    await fuzzer.expectUnharmed();
    await expectValidCall();
  });

  it('survives any headers and caller, counting nothing it refused', async () => {
    const requests = fc
      .tuple(persona, mcpHeaders, mcpFuzzBody)
      .map(([who, headers, body]) => post(who, headers, body));
    await fuzzer.check(requests, 500, checks);
    await fuzzer.expectUnharmed();
    await expectValidCall();
  });
});
