import { readFileSync } from 'node:fs';
import { get, type ClientRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { loadSettings } from '../../src/kernel/settings/settings';
import { makeStore, openBackend, storeOf } from '../../src/kernel/store/store.module';
import { newLedgerId, type NewLedgerEntry } from '../../src/ledger';
import { USAGE_STORE } from '../../src/limits/limits.stores';
import type { QuotaCharge, UsageStore } from '../../src/limits/usage.store';
import { INITIAL_KEY_FILE } from '../../src/subjects/initial-key';
import { baseEnv, SpawnedApp, spawnListening, tempDataDir } from '../support/app';
import { usingSharedRedis } from '../support/redis';

const ENTRIES = 100_000;
/** What one round of the event loop counts together, as calls arrive. */
const BATCH = 500;
/** The subjects of the fixture: 50 keys, their calls in turn. */
const KEYS = Array.from({ length: 50 }, (_, i) => `key_${i.toString(16).padStart(16, '0')}`);
/** The fixture's calls end this far before the spec starts (all today, unless it starts just after midnight). */
const NOW = Date.now();
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The `i`th call of the fixture: a millisecond apart, counted on its own day. */
function charge(i: number): QuotaCharge {
  const at = NOW - ENTRIES + i;
  const entry: NewLedgerEntry = {
    id: newLedgerId(at),
    subject: { kind: 'key', id: KEYS[i % KEYS.length], external_id: null },
    run_id: null,
    tool: 'greet',
    credits: 1,
    kind: 'charge',
    transport: 'rest',
    request_id: `5b0c1a52-62b8-4b8e-9d4f-${String(i).padStart(12, '0')}`,
    idempotency_key: null,
    invocation_id: null,
    source: null,
  };
  return {
    day: day(at),
    month: day(at).slice(0, 7),
    dailyLimit: null,
    monthlyLimit: null,
    cost: 1,
    tool: 'greet',
    entry,
  };
}

/** The usage store of the server's backend, opened by this process beside the server. */
async function withUsage(env: Record<string, string>, work: (usage: UsageStore) => Promise<void>) {
  const backend = await openBackend(loadSettings(env));
  try {
    await work(await makeStore(backend, USAGE_STORE));
  } finally {
    await storeOf(backend).close();
  }
}

/** ENTRIES entries written through the usage store (the ledger's writer), as calls write them. */
function fill(env: Record<string, string>): Promise<void> {
  return withUsage(env, async (usage) => {
    for (let i = 0; i < ENTRIES; i += BATCH) {
      await Promise.all(
        Array.from({ length: Math.min(BATCH, ENTRIES - i) }, (_, j) => {
          const made = charge(i + j);
          return usage.consumeQuota(made.entry!.subject.id, made);
        }),
      );
    }
  });
}

interface LedgerCheck {
  name: string;
  status: string;
  message: string;
  checked_at?: string;
}

/**
 * `doctor` and the ledger's exports over a 100,000-entry ledger (written through the stores, as
 * calls write it), a server in its own process on this run's backend (SQLite, or Redis in the Redis
 * projects): the ledger check answers its last result between reconciliations (the same
 * `checked_at`, a drift made since unseen); an export on SQLite serves another request between
 * its slices; past LEDGER_MAX_EXPORTS streams at once, a 429 with Retry-After. Mechanisms, never a
 * wall-clock figure (bench:long-calls measures /health's p99 meanwhile). In `npm run test:matrix`
 * only (test/support/matrix-only.js).
 */
describe('doctor and exports over a 100,000-entry ledger (e2e)', () => {
  let server: SpawnedApp;
  let port: number;
  let key: string;
  let env: Record<string, string>;
  const open: ClientRequest[] = [];

  beforeAll(async () => {
    const dataDir = tempDataDir();
    env = { ...baseEnv(dataDir), DATA_DIR: dataDir };
    await fill(env);
    ({ app: server, port } = await spawnListening({ env }));
    key = readFileSync(join(dataDir, INITIAL_KEY_FILE), 'utf8').trim();
  }, 600_000);
  afterEach(() => {
    for (const request of open.splice(0)) request.destroy();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const url = (path: string) => `http://127.0.0.1:${port}${path}`;
  const headers = () => ({ Authorization: `Bearer ${key}` });
  const ledgerCheck = async (): Promise<LedgerCheck> => {
    const res = await fetch(url('/api/v1/services/doctor'), {
      method: 'POST',
      headers: { ...headers(), 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { checks: LedgerCheck[] };
    return body.checks.find((check) => check.name === 'ledger')!;
  };

  it('doctor reconciles the 100,000 entries from the sums, then answers its last result', async () => {
    const first = await ledgerCheck();
    expect(first).toMatchObject({
      status: 'pass',
      // The fixture's keys, and the admin key doctor charges.
      message: `The ledger matches the counters of ${KEYS.length + 1} subjects active today or yesterday`,
      checked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // A count without its entry, written beside the server: the next reconciliation's drift.
    await withUsage(env, async (usage) => {
      const drift = { ...charge(0), day: day(Date.now()), entry: undefined };
      expect((await usage.consumeQuota(KEYS[0], drift)).allowed).toBe(true);
    });
    // Within the interval (60 s by default) the check answers the result it has: the same time,
    // the drift unseen (it read nothing again); four at once too.
    const again = await Promise.all([1, 2, 3, 4].map(() => ledgerCheck()));
    for (const answer of again) expect(answer).toEqual(first);
  }, 120_000);

  /** An export of the whole range as NDJSON, its events noted in `events`, not read past `paused`. */
  const startExport = (events: string[], name: string, paused = false) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const request = get(
        url('/api/v1/ledger?from=2000-01-01T00:00:00Z'),
        { headers: { ...headers(), Accept: 'application/x-ndjson' } },
        (res) => {
          if (paused) res.pause();
          res.on('data', () => events.push(`${name} data`));
          res.on('end', () => events.push(`${name} end`));
          resolve(res);
        },
      );
      request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
      open.push(request);
    });

  (usingSharedRedis() ? it.skip : it)(
    'an export on SQLite answers another request between its slices',
    async () => {
      // The places of exports another test held free once the server has seen them close. Each
      // attempt notes its own events: a refused one's body is not the export's.
      const attempt = async () => {
        const seen: string[] = [];
        return { seen, res: await startExport(seen, 'export') };
      };
      let { seen: events, res } = await attempt();
      for (let tries = 0; tries < 100 && res.statusCode === 429; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        ({ seen: events, res } = await attempt());
      }
      expect(res.statusCode).toBe(200);
      // Asked once the export is streaming, /health is answered while the export still has
      // entries to send: the export's end comes after it, with more of its data between.
      await new Promise((resolve) => res.once('data', resolve));
      const health = await fetch(url('/health'));
      events.push('health answered');
      expect(health.status).toBe(200);
      await new Promise((resolve) =>
        res.readableEnded ? resolve(null) : res.once('end', resolve),
      );
      const answered = events.indexOf('health answered');
      expect(answered).toBeGreaterThan(-1);
      expect(events.indexOf('export end')).toBeGreaterThan(answered);
      expect(events.slice(answered).filter((e) => e === 'export data').length).toBeGreaterThan(0);
    },
    120_000,
  );

  it('refuses the export past LEDGER_MAX_EXPORTS (2) with a 429 and Retry-After: 5; a closed one frees its place', async () => {
    const events: string[] = [];
    // Two streams held open: their clients read nothing, the server waits on them.
    const held = [await startExport(events, 'a', true), await startExport(events, 'b', true)];
    for (const res of held) expect(res.statusCode).toBe(200);
    const third = await fetch(url('/api/v1/ledger?from=2000-01-01T00:00:00Z'), {
      headers: { ...headers(), Accept: 'text/csv' },
    });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('5');
    expect(await third.json()).toEqual({
      detail: 'Too many ledger exports at once. Retry after 5 seconds.',
    });
    // A JSON page is no export: still served.
    const page = await fetch(url('/api/v1/ledger?limit=1'), { headers: headers() });
    expect(page.status).toBe(200);
    // One client goes away: its stream closes, and an export is admitted again.
    open.shift()!.destroy();
    let status = 0;
    for (let attempt = 0; attempt < 100 && status !== 200; attempt++) {
      const next = await startExport(events, 'c', true);
      status = next.statusCode ?? 0;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(200);
    // The streams this test held go, so that the other tests' exports are admitted.
    for (const request of open.splice(0)) request.destroy();
  }, 120_000);
});
