import { IdempotencyService } from '../../src/idempotency/idempotency.service';
import { Clock } from '../../src/kernel/common/clock';
import { bearer, startApp, TestApp } from '../support/app';
import { FakeClock } from '../support/fake-clock';
import { keptAnswers } from '../support/kept-answers';
import { gate, GatedToolModule } from '../support/gated-tool.module';
import { startStdioMcp } from '../support/stdio-mcp';

const IN_PROGRESS = { detail: 'A request with this Idempotency-Key is in progress' };
const REUSED = { detail: 'Idempotency-Key reused with a different request' };

describe('Idempotency-Key on tool calls (e2e)', () => {
  // Still: the rate buckets hold exactly what the calls left in them, however slow the machine.
  const clock = new FakeClock(new Date());
  let t: TestApp;

  beforeAll(async () => {
    // A 70 KB label takes a tool body larger than TOOL_BODY_LIMIT_BYTES' default.
    t = await startApp({
      imports: [GatedToolModule],
      env: { TOOL_BODY_LIMIT_BYTES: '262144' },
      configure: (b) => b.overrideProvider(Clock).useValue(clock),
    });
  });
  afterAll(() => t.close());

  const call = (key: string, tool: string, body: object | undefined, idem?: string) => {
    let req = t.http().post(`/api/v1/services/${tool}`).set(bearer(key));
    if (idem !== undefined) req = req.set('Idempotency-Key', idem);
    return body === undefined ? req : req.send(body);
  };
  const used = async (key: string) =>
    ((await t.http().get('/api/v1/usage').set(bearer(key)).expect(200)).body as { used: number })
      .used;

  it('replays the first answer with Idempotent-Replayed, fresh ids and rate headers, uncounted', async () => {
    const key = await t.createKey({ scope_template: 'standard' });
    const first = await call(key, 'greet', { name: 'Ada', shout: true }, 'order-1');
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same request in another key order is the same request (canonical JSON).
    const again = await call(key, 'greet', { shout: true, name: 'Ada' }, 'order-1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    // A free key's bucket holds 15: the replay counted against it too.
    expect(again.headers['x-ratelimit-remaining']).toBe('13');
    expect(again.headers['x-quota-used']).toBeUndefined();
    expect(await used(key)).toBe(1);
  });

  it('answers the same key with another body 422, and keeps keys apart per tool and API key', async () => {
    const key = await t.createKey({ scope_template: 'standard' });
    await call(key, 'greet', { name: 'Ada' }, 'k').expect(200);
    const other = await call(key, 'greet', { name: 'Bob' }, 'k');
    expect([other.status, other.body]).toEqual([422, REUSED]);
    expect((await call(key, 'gated', { label: 'x' }, 'k')).status).toBe(200);
    const second = await t.createKey({ scope_template: 'standard' });
    const mine = await call(second, 'greet', { name: 'Bob' }, 'k');
    expect([mine.status, mine.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect(await used(key)).toBe(2);
  });

  it('answers 409 while the first call runs, then replays it', async () => {
    const key = await t.createKey({ scope_template: 'standard' });
    gate.close();
    const runs = gate.runs;
    const first = call(key, 'gated', { label: 'slow' }, 'slow-1').then((r) => r);
    await gate.ran(runs + 1);
    const during = await call(key, 'gated', { label: 'slow' }, 'slow-1');
    expect([during.status, during.body]).toEqual([409, IN_PROGRESS]);
    gate.release();
    const done = await first;
    expect(done.status).toBe(200);
    const after = await call(key, 'gated', { label: 'slow' }, 'slow-1');
    expect(after.body).toEqual(done.body);
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(gate.runs).toBe(runs + 1);
    expect(await used(key)).toBe(1);
  });

  it('runs the tool once and counts once for concurrent first calls', async () => {
    const key = await t.createKey({ scope_template: 'standard', plan: 'pro' });
    const runs = gate.runs;
    gate.close();
    let answered = 0;
    let sevenAnswered!: () => void;
    const seven = new Promise<void>((resolve) => (sevenAnswered = resolve));
    const calls = Array.from({ length: 8 }, () =>
      call(key, 'gated', { label: 'race' }, 'race-1').then((r) => {
        if (++answered === 7) sevenAnswered();
        return r;
      }),
    );
    // One call holds the claim at the gate; the seven others are answered meanwhile.
    await seven;
    gate.release();
    const statuses = (await Promise.all(calls)).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(7);
    expect(gate.runs).toBe(runs + 1);
    expect(await used(key)).toBe(1);
  });

  it('runs the tool once across two instances of one deployment', async () => {
    const other = await startApp({ dataDir: t.dataDir, imports: [GatedToolModule] });
    try {
      const key = await t.createKey({ scope_template: 'standard', plan: 'pro' });
      const runs = gate.runs;
      const calls = Array.from({ length: 6 }, (_, i) =>
        (i % 2 ? other : t)
          .http()
          .post('/api/v1/services/gated')
          .set(bearer(key))
          .set('Idempotency-Key', 'twice')
          .send({ label: 'both' })
          .then((r) => r),
      );
      const statuses = (await Promise.all(calls)).map((r) => r.status);
      expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
      expect(gate.runs).toBe(runs + 1);
      expect(await used(key)).toBe(1);
      const replay = await other
        .http()
        .post('/api/v1/services/gated')
        .set(bearer(key))
        .set('Idempotency-Key', 'twice')
        .send({ label: 'both' });
      expect(replay.headers['idempotent-replayed']).toBe('true');
    } finally {
      await other.close();
    }
  });

  it('keeps a 500 and a 404 of the tool and replays them; a 400 of validation is not kept', async () => {
    const key = await t.createKey({ scope_template: 'standard', plan: 'pro' });
    const bad = await call(key, 'greet', { name: '' }, 'bad-1');
    expect(bad.status).toBe(400);
    // The tool never ran: the same request is refused again, not replayed; a corrected one runs.
    const badAgain = await call(key, 'greet', { name: '' }, 'bad-1');
    expect([badAgain.status, badAgain.body]).toEqual([400, bad.body]);
    expect(badAgain.headers['idempotent-replayed']).toBeUndefined();
    const fixed = await call(key, 'greet', { name: 'Ada' }, 'bad-1');
    expect([fixed.status, fixed.headers['idempotent-replayed']]).toEqual([200, undefined]);
    const broken = await call(key, 'gated', { fail: true }, 'broken-1');
    expect([broken.status, broken.body]).toEqual([500, { detail: 'Internal Server Error' }]);
    const brokenAgain = await call(key, 'gated', { fail: true }, 'broken-1');
    expect([brokenAgain.status, brokenAgain.headers['idempotent-replayed']]).toEqual([500, 'true']);
    const missing = await call(key, 'config_get', { key: 'nope.nothing' }, 'missing-1');
    expect(missing.status).toBe(404);
    const missingAgain = await call(key, 'config_get', { key: 'nope.nothing' }, 'missing-1');
    expect([missingAgain.status, missingAgain.body]).toEqual([404, missing.body]);
    expect(missingAgain.headers['idempotent-replayed']).toBe('true');
    // Each call that reached the quota counts, the two refused 400s too; replays do not.
    expect(await used(key)).toBe(5);
  });

  it('keeps nothing that never ran the tool (402), and replays even with no quota left', async () => {
    const { key, id } = await t.createKeyWithId({ scope_template: 'standard', daily_limit: 1 });
    await call(key, 'greet', { name: 'Ada' }, 'paid').expect(200);
    const refused = await call(key, 'greet', { name: 'Bob' }, 'unpaid');
    expect(refused.status).toBe(402);
    expect((await call(key, 'greet', { name: 'Bob' }, 'unpaid')).status).toBe(402);
    const replay = await call(key, 'greet', { name: 'Ada' }, 'paid');
    expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([200, 'true']);
    await t
      .http()
      .patch(`/api/v1/auth/api-keys/${id}`)
      .set(bearer(t.adminKey))
      .send({ daily_limit: 2 })
      .expect(200);
    const ran = await call(key, 'greet', { name: 'Bob' }, 'unpaid');
    expect([ran.status, ran.headers['idempotent-replayed']]).toEqual([200, undefined]);
  });

  it('treats no body as {} and refuses an invalid Idempotency-Key with a header 400', async () => {
    const key = await t.createKey({ scope_template: 'standard', plan: 'pro' });
    await call(key, 'gated', undefined, 'empty').expect(200);
    const same = await call(key, 'gated', {}, 'empty');
    expect(same.headers['idempotent-replayed']).toBe('true');
    for (const bad of ['a b', 'x'.repeat(256), '']) {
      const res = await call(key, 'greet', { name: 'Ada' }, bad);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        detail: [
          {
            loc: ['header', 'Idempotency-Key'],
            msg: 'Value error, an Idempotency-Key is 1 to 255 visible ASCII characters',
            type: 'value_error',
          },
        ],
      });
    }
    expect((await call(key, 'greet', { name: 'Ada' }, 'x'.repeat(255))).status).toBe(200);
  });

  it('does not keep answers larger than 64 KB', async () => {
    const key = await t.createKey({ scope_template: 'standard' });
    const label = 'y'.repeat(70_000);
    await call(key, 'gated', { label }, 'big').expect(200);
    const again = await call(key, 'gated', { label }, 'big');
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([200, undefined]);
  });

  it('shares one scope between REST and MCP (_meta["io.tis/idempotency-key"])', async () => {
    const key = await t.createKey({ scope_template: 'standard', plan: 'pro' });
    const rest = await call(key, 'greet', { name: 'Ada' }, 'both-1');
    const mcp = (idem: string, name: string) =>
      t
        .http()
        .post('/mcp')
        .set('Accept', 'application/json, text/event-stream')
        .set(bearer(key))
        .send({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'greet', arguments: { name }, _meta: { 'io.tis/idempotency-key': idem } },
        });
    const replayed = await mcp('both-1', 'Ada');
    expect(replayed.body.result.structuredContent).toEqual(rest.body);
    const conflict = await mcp('both-1', 'Bob');
    expect(conflict.body.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: REUSED.detail }],
    });
    await mcp('mcp-only', 'Cy');
    const fromRest = await call(key, 'greet', { name: 'Cy' }, 'mcp-only');
    expect(fromRest.headers['idempotent-replayed']).toBe('true');
    expect(await used(key)).toBe(2);
  });

  it('keeps the same scope over MCP on stdio, in-process', async () => {
    const key = await t.createKey({ scope_template: 'standard', plan: 'pro' });
    const rest = await call(key, 'greet', { name: 'Stdio' }, 'stdio-1');
    const stdio = await startStdioMcp({ dataDir: t.dataDir, key });
    try {
      const callWith = (idem: string, name: string) =>
        stdio.client.callTool({
          name: 'greet',
          arguments: { name },
          _meta: { 'io.tis/idempotency-key': idem },
        });
      const replayed = await callWith('stdio-1', 'Stdio');
      expect(replayed.structuredContent).toEqual(rest.body);
      const reused = await callWith('stdio-1', 'Other');
      expect(reused).toMatchObject({ isError: true, content: [{ text: REUSED.detail }] });
      await callWith('stdio-2', 'Fresh');
      const fromRest = await call(key, 'greet', { name: 'Fresh' }, 'stdio-2');
      expect(fromRest.headers['idempotent-replayed']).toBe('true');
    } finally {
      await stdio.close();
    }
    // The REST call and the stdio call that ran the tool; replays and the 422 count nothing.
    expect(await used(key)).toBe(2);
  });
});

describe('kept idempotent answers are bounded (e2e)', () => {
  const BUDGET = 4096;
  const clock = new FakeClock(new Date('2031-03-04T05:06:07.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({
      env: { IDEMPOTENCY_MAX_BYTES_PER_KEY: String(BUDGET) },
      configure: (b) => b.overrideProvider(Clock).useValue(clock),
    });
  });
  afterAll(() => t.close());

  const greet = (key: string, idem: string, body: object = { name: 'Ada' }) =>
    t
      .http()
      .post('/api/v1/services/greet')
      .set(bearer(key))
      .set('Idempotency-Key', idem)
      .send(body);
  const mcpCall = (key: string, idem: string, args: object) =>
    t
      .http()
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .set(bearer(key))
      .send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'greet', arguments: args, _meta: { 'io.tis/idempotency-key': idem } },
      });

  it('keeps no validation 400, over MCP either: a valid retry with the same key runs', async () => {
    const { key, id } = await t.createKeyWithId({ scope_template: 'standard', plan: 'unlimited' });
    const bad = await mcpCall(key, 'm-1', { name: 'A', times: 0 });
    expect(bad.body.result).toMatchObject({ isError: true });
    expect((await keptAnswers(t, id)).entries).toBe(0);
    const good = await mcpCall(key, 'm-1', { name: 'A' });
    expect(good.body.result.structuredContent).toMatchObject({ message: 'Hello, A!' });
    expect((await keptAnswers(t, id)).entries).toBe(1);
  });

  it('cuts a name echoed in a 400 to 100 characters, and keeps nothing of it', async () => {
    const { key, id } = await t.createKeyWithId({ scope_template: 'standard', plan: 'unlimited' });
    const long = 'u'.repeat(60_000);
    const res = await greet(key, 'long-1', { name: 'A', [long]: 1 });
    expect(res.status).toBe(400);
    const entry = (res.body.detail as { loc: string[]; type: string }[])[0];
    expect(entry).toMatchObject({ type: 'extra_forbidden' });
    expect(entry.loc).toEqual(['body', 'u'.repeat(100)]);
    expect(res.text.length).toBeLessThan(1000);
    expect(await keptAnswers(t, id)).toEqual({ entries: 0, bytes: 0 });
  });

  it('answers a new Idempotency-Key 429 past the byte budget, until the oldest answer expires; replays go on', async () => {
    const { key, id } = await t.createKeyWithId({ scope_template: 'standard', plan: 'unlimited' });
    const started = clock.now();
    let refused: Awaited<ReturnType<typeof greet>> | undefined;
    let kept = 0;
    for (let i = 0; i < 50 && !refused; i++) {
      const res = await greet(key, `budget-${i}`, { name: 'x'.repeat(150) });
      if (res.status === 429) refused = res;
      else {
        expect(res.status).toBe(200);
        kept++;
      }
    }
    expect(refused).toBeDefined();
    expect(kept).toBeGreaterThan(5);
    expect(refused!.body).toEqual({
      detail: 'Too many kept idempotent answers for this key. Retry after 86400 seconds.',
    });
    expect(refused!.headers['retry-after']).toBe('86400');
    // What the store holds stays within the budget, give or take the answer that reached it.
    const stored = await keptAnswers(t, id);
    expect(stored.entries).toBe(kept);
    expect(stored.bytes).toBeLessThanOrEqual(BUDGET + 1024);
    // Not counted against the quota; a replay is still served.
    const usage = await t.http().get('/api/v1/usage').set(bearer(key));
    expect(usage.body.used).toBe(kept);
    const replay = await greet(key, 'budget-0', { name: 'x'.repeat(150) });
    expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([200, 'true']);
    // Calls without an Idempotency-Key are not concerned.
    const plain = await t
      .http()
      .post('/api/v1/services/greet')
      .set(bearer(key))
      .send({ name: 'A' });
    expect(plain.status).toBe(200);
    // Once the oldest answers expire, new keys are kept again.
    clock.set(new Date(started.getTime() + 86_400_000 + 1000));
    try {
      expect((await greet(key, 'budget-late', { name: 'late' })).status).toBe(200);
    } finally {
      clock.set(started);
    }
  });

  it('answers a new Idempotency-Key 429 past the entry cap', async () => {
    const few = await startApp({ env: { IDEMPOTENCY_MAX_ENTRIES_PER_KEY: '10' } });
    try {
      const { key, id } = await few.createKeyWithId({
        scope_template: 'standard',
        plan: 'unlimited',
      });
      const call = (idem: string) =>
        few
          .http()
          .post('/api/v1/services/greet')
          .set(bearer(key))
          .set('Idempotency-Key', idem)
          .send({ name: 'c' });
      for (let i = 0; i < 10; i++) expect((await call(`cap-${i}`)).status).toBe(200);
      const refused = await call('cap-10');
      expect(refused.status).toBe(429);
      expect(refused.body.detail).toMatch(
        /^Too many kept idempotent answers for this key\. Retry after \d+ seconds?\.$/,
      );
      expect((await keptAnswers(few, id)).entries).toBe(10);
    } finally {
      await few.close();
    }
  });

  it("purges expired answers of every key, a revoked key's too, measured in the store", async () => {
    const a = await t.createKeyWithId({ scope_template: 'standard', plan: 'unlimited' });
    const b = await t.createKeyWithId({ scope_template: 'standard', plan: 'unlimited' });
    for (let i = 0; i < 5; i++) {
      await greet(a.key, `purge-a-${i}`).expect(200);
      await greet(b.key, `purge-b-${i}`).expect(200);
    }
    await t.http().delete(`/api/v1/auth/api-keys/${a.id}`).set(bearer(t.adminKey)).expect(200);
    expect((await keptAnswers(t, a.id)).entries).toBe(5);
    const started = clock.now();
    clock.set(new Date(started.getTime() + 25 * 3_600_000));
    try {
      await t.app.get(IdempotencyService).purgeExpired();
      expect(await keptAnswers(t, a.id)).toEqual({ entries: 0, bytes: 0 });
      expect(await keptAnswers(t, b.id)).toEqual({ entries: 0, bytes: 0 });
    } finally {
      clock.set(started);
    }
  });
});
