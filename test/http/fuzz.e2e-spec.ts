/**
 * Property-based fuzzing of the real application (fast-check), over raw HTTP/1.1 sockets so that
 * malformed paths, junk methods and arbitrary header bytes reach the server exactly as sent.
 *
 * Five generators (paths × methods, headers, bodies, JSON-RPC on /mcp, bytes Node's HTTP parser
 * refuses); for every generated request:
 *  1. there is an answer (no hang, no connection closed without one), and it is never a 5xx (the
 *     store is up, so not even 503), nor on /mcp a JSON-RPC -32603 Internal error;
 *  2. an answer >= 400 (HEAD aside) is a JSON object with a `detail` string or list (on /mcp a
 *     JSON-RPC error envelope is accepted too), served as JSON, without a stack trace;
 *  3. the process stays up: no uncaught exception, and `GET /health` still answers 200 afterwards;
 *  4. after each property, greet still works, no prototype was polluted, and config_show is
 *     unchanged (checked after every property, so that it holds whatever order they run in).
 *
 * Bounded and reproducible: a fixed seed (FUZZ_SEED), a fixed number of runs per property and a
 * time limit per property (shrinking included). Each property stops at its first failure and
 * shrinks it; `FUZZ_REPORT=all` instead runs every request and lists each distinct failure of a
 * property with its smallest example (and the statuses seen), which is what to use when fixing
 * several at once. Runs only in the SQLite project (jest.config.js): it tests the HTTP surface, not
 * the store.
 *
 * The raw client and the answer checks are in support/fuzz/client.ts, the generators in
 * support/fuzz/{requests,headers,bodies,properties}.ts, the harness in support/fuzz/harness.ts.
 * POST /mcp has a suite of its own, with what each request counted: mcp-fuzz.e2e-spec.ts.
 */
import fc from 'fast-check';
import { Fuzzer } from '../support/fuzz/harness';
import {
  bodyRequests,
  headerRequests,
  mcpRequests,
  parserRequests,
  routeRequests,
} from '../support/fuzz/properties';
import { unicodeText } from '../support/fuzz/requests';

describe('fuzzing the HTTP surface (e2e)', () => {
  const fuzzer = new Fuzzer();
  let victimId: string;
  const admin = () => fuzzer.admin();

  beforeAll(async () => {
    await fuzzer.start();
    victimId = (await fuzzer.t.createKeyWithId({ name: 'victim', scope_template: 'standard' })).id;
  });
  afterAll(() => fuzzer.close());

  const keyIds = () =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(victimId) },
      { weight: 1, arbitrary: fc.stringMatching(/^key_[0-9a-f]{16}$/) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'x'.repeat(1001)),
      },
      { weight: 1, arbitrary: unicodeText(20).map(encodeURIComponent) },
    );

  it('survives every route, with any method and malformed path', async () => {
    await fuzzer.check(routeRequests(admin, keyIds()), 500);
    await fuzzer.expectUnharmed();
  });

  it('survives any headers', async () => {
    await fuzzer.check(headerRequests(fuzzer.t.adminKey, victimId), 400);
    await fuzzer.expectUnharmed();
  });

  it('survives any body on the routes that read one', async () => {
    await fuzzer.check(bodyRequests(admin, victimId), 500);
    await fuzzer.expectUnharmed();
  });

  it('survives any JSON-RPC on /mcp', async () => {
    await fuzzer.check(mcpRequests(admin), 300);
    await fuzzer.expectUnharmed();
  });

  it("survives what Node's HTTP parser refuses", async () => {
    await fuzzer.check(parserRequests(victimId), 250);
    await fuzzer.expectUnharmed();
  });

  it('still answers, unpolluted and unchanged, with or without fuzzing before', async () => {
    await fuzzer.expectUnharmed();
  });
});
