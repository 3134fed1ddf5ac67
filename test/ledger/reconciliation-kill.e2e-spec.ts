import request from 'supertest';
import { baseEnv, bearer, tempDataDir } from '../support/app';
import { writeConfigFile } from '../support/config';
import { killHard, RuntimeInstance, startInstance, until } from '../support/runtime-instance';
import { ledgerOf, reconcile } from '../support/ledger-reconciliation';

/** What a call of `slow` costs on the `pro` plan here: its charges and refunds stand out. */
const SLOW = 5;
/** One slot of `slow` an instance (held by the holder's call): the others wait in its queue. */
const CONFIG = `tools:
  slow:
    timeout_ms: 600000
    concurrency: 1
    queue: 60
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
/** Calls in the stream, and how many answers come before the kill. */
const STREAM = 180;
const KILL_AFTER = 60;
/** Requests in flight at once. */
const WORKERS = 8;

/** One request of the stream, as its client saw it. */
interface Sent {
  /** Our X-Request-Id: the ledger entry of a counted call carries it. */
  requestId: string;
  who: string;
  transport: 'rest' | 'mcp';
  /** 0: no answer (the instance was killed with the request in flight, or before it). */
  status: number;
  /** Whether the service counted it; undefined when there was no answer to tell. */
  charged: boolean | undefined;
}

interface InvocationView {
  id: string;
  status: string;
  started_at: string | null;
}

/** A key's long-running calls, as it lists them (newest first; one page holds them all here). */
async function invocationsOf(url: string, key: string): Promise<InvocationView[]> {
  const res = await request(url).get('/api/v1/invocations').query({ limit: 100 }).set(bearer(key));
  expect(res.status).toBe(200);
  const body = res.body as { invocations?: InvocationView[] } | InvocationView[];
  const list = Array.isArray(body) ? body : (body.invocations ?? []);
  expect(list.length).toBeLessThan(100);
  return list;
}

/**
 * Exact reconciliation across a kill -9: two instances (processes of their own) on one store, a
 * stream of calls over both (REST and MCP of either era, a run's calls, long-running calls queued on
 * the instance that dies, idempotent retries on the other instance, refusals), the first instance
 * killed with SIGKILL while calls are in flight, then restarted on the same data. Once the calls
 * it left are settled (those that never started refunded), every key's ledger equals its counters
 * per UTC day, tool and month, every run's entries its `spent`: no entry without its count, no
 * count without its entry. Every answered counted request has exactly one charge entry, no
 * answered refusal has one, a request the kill cut off has at most one; every call that never
 * started is refunded once; `doctor`'s ledger check agrees (and, on Redis, `fix` indexes by time
 * any entry the killed process wrote but did not index).
 */
describe('the ledger reconciles with the counters across a kill -9 (e2e)', () => {
  const instances: RuntimeInstance[] = [];
  afterAll(async () => {
    await Promise.all(instances.map(killHard));
  });

  it('leaves no entry without its count and no count without its entry', async () => {
    const dataDir = tempDataDir();
    const env = {
      ...baseEnv(dataDir),
      DATA_DIR: dataDir,
      CONFIG_FILE: writeConfigFile(dataDir, CONFIG),
      INVOCATION_LEASE_MS: '1500',
    };
    // The first start makes the admin key and writes its file: it comes first, alone.
    const a = await startInstance(env);
    instances.push(a);
    const b = await startInstance(env);
    instances.push(b);
    const admin = a.adminKey;
    const pro = async (body: Record<string, unknown>) => {
      const res = await request(b.url)
        .post('/api/v1/auth/api-keys')
        .set(bearer(admin))
        .send({
          plan: 'pro',
          scope_template: 'standard',
          daily_limit: 1_000_000,
          monthly_limit: 10_000_000,
          rate_limit: 1000,
          ...body,
        });
      expect(res.status).toBe(201);
      return res.body as { id: string; key: string };
    };
    const keys = {
      wide: await pro({ name: 'wide', external_id: 'cus_wide' }),
      tight: await pro({ name: 'tight', daily_limit: 10 }),
      parent: await pro({ name: 'parent' }),
      holder: await pro({ name: 'holder' }),
    };
    const created = await request(a.url)
      .post('/api/v1/runs')
      .set(bearer(keys.parent.key))
      .send({ budget: 30 });
    expect(created.status).toBe(201);
    const run = { id: created.body.id as string, token: created.body.token as string };
    // The holder takes the one slot of `slow` on each instance: the stream's long-running calls
    // wait in a's queue, and are refunded when a dies.
    for (const instance of [a, b]) {
      const held = await request(instance.url)
        .post(SLOW_PATH)
        .set(bearer(keys.holder.key))
        .set('Prefer', 'respond-async')
        .send({ ms: 600_000, label: 'holder' });
      expect([held.status, held.body.status]).toEqual([202, 'running']);
    }

    let killed = false;
    let n = 0;
    const rid = () => `rk-${(n++).toString().padStart(4, '0')}`;
    /** The live instance a call meant for `a` goes to once `a` is dead. */
    const target = (onA: boolean) => (onA && !killed ? a.url : b.url);
    const rest = async (
      who: string,
      token: string,
      onA: boolean,
      path: string,
      body: object,
      headers: Record<string, string> = {},
    ): Promise<Sent> => {
      const requestId = rid();
      try {
        const res = await request(target(onA))
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
          charged: ((res.status === 200 || res.status === 202) && !replayed) || res.status === 400,
        };
      } catch {
        return { requestId, who, transport: 'rest', status: 0, charged: undefined };
      }
    };
    const mcp = async (who: string, token: string, onA: boolean, era: '2025' | 'modern') => {
      const requestId = rid();
      const modern = era === 'modern';
      try {
        const res = await request(target(onA))
          .post('/mcp')
          .set(bearer(token))
          .set('X-Request-Id', requestId)
          .set('Accept', 'application/json, text/event-stream')
          .set('MCP-Protocol-Version', modern ? MODERN : '2025-06-18')
          .set(modern ? { 'Mcp-Method': 'tools/call', 'Mcp-Name': 'greet' } : {})
          .send({
            jsonrpc: '2.0',
            id: requestId,
            method: 'tools/call',
            params: {
              name: 'greet',
              arguments: { name: who },
              _meta: modern
                ? {
                    'io.modelcontextprotocol/protocolVersion': MODERN,
                    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
                    'io.modelcontextprotocol/clientCapabilities': {},
                  }
                : {},
            },
          });
        const result = (res.body as { result?: { isError?: boolean } }).result;
        const charged = res.status === 200 && result !== undefined && result.isError !== true;
        return { requestId, who, transport: 'mcp' as const, status: res.status, charged };
      } catch {
        return { requestId, who, transport: 'mcp' as const, status: 0, charged: undefined };
      }
    };

    const { wide, tight } = keys;
    const async = { Prefer: 'respond-async' };
    const nobody = `sk_${'0'.repeat(64)}`;
    /** The stream, a cycle of ten kinds of call, each half of them meant for a. */
    const call = (i: number): (() => Promise<Sent[]>) => {
      const onA = i % 2 === 0;
      const one = (f: () => Promise<Sent>) => async () => [await f()];
      switch (i % 10) {
        case 0:
          return one(() => rest('wide', wide.key, onA, GREET, { name: `w${i}` }));
        case 1:
          return one(() => mcp('wide', wide.key, !onA, '2025'));
        case 2:
          return one(() => mcp('wide', wide.key, onA, 'modern'));
        case 3:
          return one(() => rest('tight', tight.key, onA, GREET, { name: `t${i}` }));
        case 4:
          return one(() => rest('run', run.token, onA, GREET, { name: `r${i}` }));
        case 5:
          // Long-running calls wait in a's queue; once a is dead, a greet on b instead.
          return one(() =>
            killed
              ? rest('wide', wide.key, false, GREET, { name: `w${i}` })
              : rest('wide', wide.key, true, SLOW_PATH, { ms: 600_000 }, async),
          );
        case 6:
          return one(() =>
            killed
              ? rest('run', run.token, false, GREET, { name: `r${i}` })
              : rest('run', run.token, true, SLOW_PATH, { ms: 600_000 }, async),
          );
        case 7:
          // An idempotent call and its retry on the other instance.
          return async () => {
            const headers = { 'Idempotency-Key': `pair-${i}` };
            const first = await rest('wide', wide.key, true, GREET, { name: 'p' }, headers);
            const retry = await rest('wide', wide.key, false, GREET, { name: 'p' }, headers);
            return [first, retry];
          };
        case 8:
          return one(() => rest('nobody', nobody, onA, GREET, { name: 'x' }));
        default:
          return one(() => rest('wide', wide.key, onA, GREET, { name: 42 }));
      }
    };

    // A synchronous call of `slow` on a waits behind the holder's until a dies: one request at
    // least is surely in flight at the kill, whatever the other requests' timing.
    const cutOff = rest('wide', wide.key, true, SLOW_PATH, { ms: 1, label: 'cut off' });
    const sent: Sent[] = [];
    let next = 0;
    let kill: Promise<void> | undefined;
    const worker = async () => {
      while (next < STREAM) {
        const results = await call(next++)();
        sent.push(...results);
        // Killed while the other workers' requests are in flight.
        if (!kill && sent.length >= KILL_AFTER) {
          kill = killHard(a).then(() => {
            killed = true;
          });
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    await kill;
    expect(killed).toBe(true);
    const cut = await cutOff;
    expect(cut.status).toBe(0);
    sent.push(cut);

    // Restarted on the same data (on SQLite it settles what a left; on Redis b does as well).
    const a2 = await startInstance(env);
    instances.push(a2);

    // The calls a left are settled: none queued or running but the holder's on b, and each call
    // that never started refunded.
    const parties = [keys.wide, keys.parent, keys.holder];
    const settledState = async () => {
      const calls = (await Promise.all(parties.map((k) => invocationsOf(a2.url, k.key)))).flat();
      // One export after another: an instance streams LEDGER_MAX_EXPORTS (2) at once.
      const entries = [];
      for (const k of parties)
        entries.push(...(await ledgerOf(a2.url, admin, { subject: `key:${k.id}` })));
      return { calls, refunds: entries.filter((e) => e.kind === 'refund') };
    };
    const neverStarted = (calls: InvocationView[]) =>
      calls
        .filter((c) => c.status === 'failed' && c.started_at === null)
        .map((c) => c.id)
        .sort();
    const settled = await until(
      settledState,
      ({ calls, refunds }) =>
        calls.filter((c) => c.status === 'queued' || c.status === 'running').length === 1 &&
        refunds.length === neverStarted(calls).length,
      60_000,
    );
    expect(
      settled.calls.filter((c) => c.status === 'queued' || c.status === 'running'),
    ).toHaveLength(1);
    expect(settled.refunds.map((e) => e.invocation_id).sort()).toEqual(neverStarted(settled.calls));
    // The stream did queue calls on a, and the kill left some to refund.
    expect(settled.refunds.length).toBeGreaterThan(0);

    // The ledger against the counters, read through both live instances.
    const keyList = Object.values(keys);
    const runs = [{ id: run.id, parent: keys.parent.id }];
    const entries = await reconcile(a2.url, admin, keyList, runs, { acrossSubjects: false });
    expect((await reconcile(b.url, admin, keyList, runs, { acrossSubjects: false })).length).toBe(
      entries.length,
    );

    // Each answered counted request has exactly one charge; no answered refusal or replay has
    // one; a request the kill cut off has at most one.
    const charges = entries.filter((e) => e.kind === 'charge' && e.request_id?.startsWith('rk-'));
    const chargesOf = new Map<string, number>();
    for (const e of charges) chargesOf.set(e.request_id!, (chargesOf.get(e.request_id!) ?? 0) + 1);
    expect(sent).toHaveLength(STREAM + STREAM / 10 + 1);
    const wrong = sent.filter((s) => {
      const found = chargesOf.get(s.requestId) ?? 0;
      return s.charged === undefined ? found > 1 : found !== (s.charged ? 1 : 0);
    });
    expect(wrong).toEqual([]);
    expect(new Set(charges.map((e) => e.request_id)).size).toBe(charges.length);
    // The holders' two calls are the only other charges.
    expect(entries.filter((e) => e.kind === 'charge')).toHaveLength(charges.length + 2);
    // The kill cut some requests off; the stream went on on b.
    expect(sent.filter((s) => s.status === 0).length).toBeGreaterThan(0);
    expect(sent.filter((s) => s.charged === true).length).toBeGreaterThan(KILL_AFTER / 2);
    expect(sent.filter((s) => s.status === 402).length).toBeGreaterThan(0);

    // doctor's ledger check agrees; on Redis its fix indexes by time any entry a wrote but had
    // not indexed when it died, after which the ledger across subjects holds every key's entries.
    const doctor = await request(a2.url)
      .post('/api/v1/services/doctor')
      .set(bearer(admin))
      .send({ fix: true });
    expect(doctor.status).toBe(200);
    const ledgerCheck = (doctor.body as { checks: { name: string; status: string }[] }).checks.find(
      (c) => c.name === 'ledger',
    );
    expect(ledgerCheck).toMatchObject({ status: 'pass' });
    const ids = new Set(keyList.map((k) => k.id));
    const across = (await ledgerOf(b.url, admin)).filter((e) => ids.has(e.subject.id));
    expect(across.map((e) => e.id).sort()).toEqual(entries.map((e) => e.id).sort());
  }, 180_000);
});
