import { Clock } from '../../src/kernel/common/clock';
import { bearer, startApp, TestApp, listenOnLoopback } from '../support/app';
import { FakeClock } from '../support/fake-clock';
import { metricValue } from '../support/metrics';
import { narrowGate, probe, RuntimeToolsModule } from '../support/runtime-tools.module';
import { usingSharedRedis } from '../support/redis';
import { callTool, openCall, TOOL_TRANSPORTS } from '../support/tool-transports';

const ASYNC = { Prefer: 'respond-async' };

/** Polls `read` until `done` holds of its value (at most ~10 s). */
async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('condition not met in time');
}

describe('A runtime for real tools, over REST and MCP alike (e2e)', () => {
  let t: TestApp;
  let key: string;
  let keyId: string;
  const clock = new FakeClock(new Date());

  beforeAll(async () => {
    t = await startApp({
      imports: [RuntimeToolsModule],
      configure: (builder) => builder.overrideProvider(Clock).useValue(clock),
    });
    ({ key, id: keyId } = await t.createKeyWithId({ plan: 'pro', rate_limit: 1000 }));
    await listenOnLoopback(t.app);
  });
  afterAll(async () => {
    narrowGate.release();
    await t.close();
  });
  beforeEach(() => {
    probe.reset();
    narrowGate.release();
    clock.set(new Date());
  });

  const call = (tool: string, body: object = {}, headers: Record<string, string> = {}) =>
    t.http().post(`/api/v1/services/${tool}`).set(bearer(key)).set(headers).send(body);
  const view = (id: string, credential = key) =>
    t.http().get(`/api/v1/invocations/${id}`).set(bearer(credential));
  const used = async () =>
    (await t.http().get(`/api/v1/auth/api-keys/${keyId}/usage`).set(bearer(t.adminKey))).body
      .used as number;
  const metrics = async () => (await t.http().get('/metrics')).text;

  it.each(TOOL_TRANSPORTS)(
    'answers 504 with the exact text at the deadline, the tool seeing its signal abort (%s)',
    async (transport) => {
      const timeouts = async () =>
        metricValue(await metrics(), 'tool_timeouts_total', { tool: 'obedient' }) ?? 0;
      const before = await timeouts();
      const label = `deadline-${transport}`;
      const answer = await callTool(t, transport, key, 'obedient', { label });
      // REST answers 504 {detail}; MCP an isError result of the same text.
      expect(answer).toEqual({
        refused: "Tool 'obedient' did not finish within 300 ms",
        ...(transport === 'rest' ? { status: 504 } : {}),
      });
      expect(probe.aborted.get(label)).toBe('TimeoutError');
      expect((await timeouts()) - before).toBe(1);
    },
  );

  it('answers a tool that ignores its signal 504 before it finishes, and drops its late result', async () => {
    const res = await call('hanging', { label: 'stubborn', ms: 1500 });
    expect([res.status, res.body]).toEqual([
      504,
      { detail: "Tool 'hanging' did not finish within 300 ms" },
    ]);
    // Answered while the handler still ran: it keeps its slot until it settles.
    expect(probe.late).toEqual([]);
    expect(probe.aborted.get('stubborn')).toBe('TimeoutError');
    const during = await metrics();
    expect(metricValue(during, 'tool_calls_in_flight', { tool: 'hanging' })).toBe(1);
    expect(metricValue(during, 'tool_calls_abandoned_total', { tool: 'hanging' })).toBe(1);
    await until(
      () => probe.late,
      (late) => late.includes('stubborn'),
    );
    expect(metricValue(await metrics(), 'tool_calls_in_flight', { tool: 'hanging' })).toBe(0);
  });

  it.each(['rest', 'mcp-2026'] as const)(
    "aborts the tool's signal when the client goes away before the answer (%s)",
    async (transport) => {
      const label = `gone-${transport}`;
      const req = await openCall(t, transport, key, 'slow', { label, ms: 20_000, steps: 100 });
      await until(() => probe.started.has(label), Boolean);
      req.destroy();
      await until(
        () => probe.aborted.get(label),
        (reason) => reason !== undefined,
      );
      expect(probe.aborted.get(label)).toBe('AbortError');
    },
  );

  it('runs one call of a narrow tool, queues one, refuses the rest 503 and counts none of them', async () => {
    narrowGate.close();
    const before = await used();
    // supertest sends a request once it is awaited: then() sends each now. Which of them takes
    // the slot and the queue depends on the order they arrive in.
    let answered = 0;
    const calls = Array.from({ length: 5 }, (_, i) =>
      call('narrow', { label: `n${i}` }).then((res) => {
        answered++;
        return res;
      }),
    );
    await until(
      () => probe.narrowRuns,
      (runs) => runs >= 1,
    );
    // Every request reaches its answer or the queue: three are answered while the gate is shut.
    expect(
      await until(
        () => answered,
        (count) => count >= 3,
      ),
    ).toBe(3);
    const during = await metrics();
    expect(metricValue(during, 'tool_calls_in_flight', { tool: 'narrow' })).toBe(1);
    expect(metricValue(during, 'tool_calls_queued', { tool: 'narrow' })).toBe(1);
    narrowGate.release();
    const answers = await Promise.all(calls);
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([200, 200, 503, 503, 503]);
    for (const res of answers.filter((r) => r.status === 503)) {
      expect(res.body).toEqual({ detail: "Tool 'narrow' is at capacity; retry shortly." });
      expect(res.headers['retry-after']).toBe('1');
    }
    expect(probe.narrowRuns).toBe(2);
    expect((await used()) - before).toBe(2);
    expect(metricValue(await metrics(), 'tool_capacity_rejections_total', { tool: 'narrow' })).toBe(
      3,
    );
  });

  it('runs a call in the background: 202 and Location, queued, running with progress, succeeded', async () => {
    narrowGate.close();
    const holder = call('narrow', { label: 'holder' }).then((res) => res);
    await until(
      () => probe.narrowRuns,
      (runs) => runs >= 1,
    );
    const accepted = await call('narrow', { label: 'queued' }, ASYNC);
    expect(accepted.status).toBe(202);
    const id = accepted.body.id as string;
    expect(id).toMatch(/^inv_[0-9a-f]{32}$/);
    expect(accepted.headers.location).toBe(`/api/v1/invocations/${id}`);
    expect(accepted.body).toMatchObject({ tool: 'narrow', status: 'queued', result: null });
    expect((await view(id)).body.status).toBe('queued');
    narrowGate.release();
    await holder;
    const done = await until(
      async () => (await view(id)).body as { status: string },
      (v) => v.status === 'succeeded',
    );
    expect(done).toMatchObject({ result: { label: 'queued', slept: 0 }, error: null });

    const slow = await call('slow', { label: 'steps', ms: 900, steps: 3 }, ASYNC);
    expect([slow.status, slow.body.status]).toEqual([202, 'running']);
    const moving = await until(
      async () => (await view(slow.body.id as string)).body as { progress: unknown },
      (v) => v.progress !== null,
    );
    expect(moving).toMatchObject({ status: 'running', progress: { total: 3 } });
    const finished = await until(
      async () => (await view(slow.body.id as string)).body as { status: string },
      (v) => v.status === 'succeeded',
    );
    expect(finished).toMatchObject({
      progress: { done: 3, total: 3, message: 'step 3' },
      result: { label: 'steps', slept: 900 },
      started_at: expect.any(String),
      finished_at: expect.any(String),
    });
  });

  it('answers as usual when the call ends within the wait asked for, 202 when not', async () => {
    const quick = await call('slow', { ms: 50 }, { Prefer: 'respond-async, wait=5' });
    expect([quick.status, quick.body]).toEqual([200, { label: 'slow', slept: 50 }]);
    const late = await call('slow', { ms: 3000, steps: 30 }, { Prefer: 'respond-async; wait=1' });
    expect(late.status).toBe(202);
    await t
      .http()
      .delete(`/api/v1/invocations/${late.body.id as string}`)
      .set(bearer(key));
  });

  it('cancels a running call: its signal aborts and its view turns cancelled; 409 once over, 404 for others', async () => {
    const started = await call('slow', { label: 'cancel-me', ms: 20_000, steps: 100 }, ASYNC);
    const id = started.body.id as string;
    await until(() => probe.started.has('cancel-me'), Boolean);
    const other = await t.createKey({ scope_template: 'standard' });
    expect((await view(id, other)).status).toBe(404);
    const refused = await t.http().delete(`/api/v1/invocations/${id}`).set(bearer(other));
    expect([refused.status, refused.body]).toEqual([404, { detail: 'Invocation not found' }]);
    const cancel = await t.http().delete(`/api/v1/invocations/${id}`).set(bearer(key));
    expect(cancel.status).toBe(202);
    const cancelled = await until(
      async () => (await view(id)).body as { status: string },
      (v) => v.status === 'cancelled',
    );
    expect(cancelled.status).toBe('cancelled');
    expect(probe.aborted.get('cancel-me')).toBe('AbortError');
    const again = await t.http().delete(`/api/v1/invocations/${id}`).set(bearer(key));
    expect([again.status, again.body]).toEqual([409, { detail: 'Invocation already finished' }]);
    // An admin:read caller sees anyone's; an unknown id is 404 for everyone.
    expect((await view(id, t.adminKey)).status).toBe(200);
    expect((await view(`inv_${'0'.repeat(32)}`, t.adminKey)).status).toBe(404);
  });

  it("keeps a finished call's view 24 hours, then forgets it", async () => {
    const res = await call('slow', { ms: 10 }, ASYNC);
    const id = res.body.id as string;
    await until(
      async () => (await view(id)).body.status as string,
      (s) => s === 'succeeded',
    );
    clock.set(new Date(clock.now().getTime() + 23 * 3_600_000));
    expect((await view(id)).status).toBe(200);
    clock.set(new Date(clock.now().getTime() + 3_600_000 + 1_000));
    expect([(await view(id)).status, (await view(id)).body]).toEqual([
      404,
      { detail: 'Invocation not found' },
    ]);
    const listed = await t.http().get('/api/v1/invocations').set(bearer(key));
    expect((listed.body as { id: string }[]).map((v) => v.id)).not.toContain(id);
  });

  it('returns the same invocation to a retry with the same Idempotency-Key, running it once', async () => {
    const headers = { ...ASYNC, 'Idempotency-Key': `long-${Date.now()}` };
    const first = await call('slow', { label: 'once', ms: 300 }, headers);
    const retry = await call('slow', { label: 'once', ms: 300 }, headers);
    expect([first.status, retry.status]).toEqual([202, 202]);
    expect(retry.body.id).toBe(first.body.id);
    expect(retry.headers.location).toBe(first.headers.location);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    await until(
      async () => (await view(first.body.id as string)).body.status as string,
      (s) => s === 'succeeded',
    );
    const later = await call('slow', { label: 'once', ms: 300 }, headers);
    expect([later.status, later.body.id, later.body.status]).toEqual([
      202,
      first.body.id,
      'succeeded',
    ]);
  });

  it('answers a never-async tool in the request and a required-async one with 202 unasked', async () => {
    const inline = await call('inline', { ms: 10 }, ASYNC);
    expect([inline.status, inline.body]).toEqual([200, { label: 'slow', slept: 10 }]);
    const background = await call('background', { ms: 10 });
    expect(background.status).toBe(202);
  });

  it("records a background call's failure: the tool's status and detail", async () => {
    const res = await call('broken', {}, ASYNC);
    const failed = await until(
      async () => (await view(res.body.id as string)).body as { status: string },
      (v) => v.status === 'failed',
    );
    expect(failed).toMatchObject({
      error: { status: 502, detail: 'The upstream model is unavailable' },
      result: null,
    });
    const timedOut = await call('obedient', {}, ASYNC);
    const over = await until(
      async () => (await view(timedOut.body.id as string)).body as { status: string },
      (v) => v.status === 'timed_out',
    );
    expect(over).toMatchObject({
      error: { status: 504, detail: "Tool 'obedient' did not finish within 300 ms" },
    });
  });

  it("lists the caller's own calls, newest first, by status, a page at a time", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call('slow', { ms: 1 }, ASYNC);
      ids.push(res.body.id as string);
      clock.set(new Date(clock.now().getTime() + 1000));
    }
    for (const id of ids) {
      await until(
        async () => (await view(id)).body.status as string,
        (s) => s === 'succeeded',
      );
    }
    const page = await t
      .http()
      .get('/api/v1/invocations?limit=2&status=succeeded')
      .set(bearer(key));
    expect(page.status).toBe(200);
    expect((page.body as { id: string }[]).map((v) => v.id)).toEqual([ids[2], ids[1]]);
    const next = /<([^>]+)>; rel="next"/.exec(page.headers.link)?.[1] as string;
    expect(next).toContain('status=succeeded');
    const rest = await t.http().get(next).set(bearer(key));
    expect((rest.body as { id: string }[])[0].id).toBe(ids[0]);
    const other = await t.createKey({ scope_template: 'standard' });
    expect((await t.http().get('/api/v1/invocations').set(bearer(other))).body).toEqual([]);
    const bad = await t.http().get('/api/v1/invocations?status=done').set(bearer(key));
    expect(bad.status).toBe(400);
  });
});

const onRedis = usingSharedRedis() ? it : it.skip;

describe('A runtime for real tools: instances and shutdown (e2e)', () => {
  beforeEach(() => {
    probe.reset();
    narrowGate.release();
  });
  afterEach(() => narrowGate.release());

  onRedis('holds each instance to its own capacity on a shared Redis', async () => {
    const a = await startApp({ imports: [RuntimeToolsModule] });
    const b = await startApp({ imports: [RuntimeToolsModule], dataDir: a.dataDir });
    try {
      const { key, id } = await a.createKeyWithId({ plan: 'pro', rate_limit: 1000 });
      narrowGate.close();
      let answered = 0;
      const send = (app: TestApp, i: number) =>
        app
          .http()
          .post('/api/v1/services/narrow')
          .set(bearer(key))
          .send({ label: `i${i}` })
          .then((res) => {
            answered++;
            return res;
          });
      const calls = [
        ...Array.from({ length: 5 }, (_, i) => send(a, i)),
        ...Array.from({ length: 5 }, (_, i) => send(b, i)),
      ];
      await until(
        () => probe.narrowRuns,
        (runs) => runs >= 2,
      );
      // Every call has arrived and been decided while the gate holds the slots: the six refused
      // are answered (on a loaded machine some arrive after the first two runs start).
      await until(
        () => answered,
        (n) => n >= 6,
      );
      narrowGate.release();
      const statuses = (await Promise.all(calls)).map((res) => res.status).sort();
      expect(statuses).toEqual([200, 200, 200, 200, 503, 503, 503, 503, 503, 503]);
      const usage = await a.http().get(`/api/v1/auth/api-keys/${id}/usage`).set(bearer(a.adminKey));
      expect(usage.body.used).toBe(4);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('lets running calls finish on shutdown for SHUTDOWN_DRAIN_MS, then stops and fails the rest', async () => {
    const env = { SHUTDOWN_DRAIN_MS: '400' };
    const a = await startApp({ imports: [RuntimeToolsModule], env });
    const key = await a.createKey({ plan: 'pro', rate_limit: 1000 });
    const start = async (body: object) =>
      (await a.http().post('/api/v1/services/slow').set(bearer(key)).set(ASYNC).send(body)).body
        .id as string;
    const quick = await start({ label: 'drained', ms: 100 });
    const long = await start({ label: 'stopped', ms: 4000, steps: 40 });
    await until(() => probe.started.has('stopped'), Boolean);
    const closing = a.app.close();
    // While it drains, it takes no new call in the background.
    const refused = await a
      .http()
      .post('/api/v1/services/slow')
      .set(bearer(key))
      .set(ASYNC)
      .send({ ms: 1 });
    expect([refused.status, refused.headers['retry-after']]).toEqual([503, '1']);
    await closing;
    expect(probe.aborted.get('stopped')).toBe('AbortError');
    const b = await startApp({ imports: [RuntimeToolsModule], dataDir: a.dataDir, env });
    try {
      const view = (id: string) => b.http().get(`/api/v1/invocations/${id}`).set(bearer(key));
      expect((await view(quick)).body).toMatchObject({ status: 'succeeded' });
      expect((await view(long)).body).toMatchObject({
        status: 'failed',
        error: { status: 503, detail: 'The instance running this call stopped.' },
      });
    } finally {
      await b.close();
    }
  });
});
