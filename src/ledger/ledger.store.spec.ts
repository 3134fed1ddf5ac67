import { onBothBackends } from '../../test/support/store-contract';
import type { RedisClient } from '../kernel/store/redis/redis.connection';
import type { StoreMakers } from '../kernel/store/store.module';
import { USAGE_STORE } from '../limits/limits.stores';
import type { QuotaCharge, UsageStore } from '../limits/usage.store';
import { LedgerEntry, LedgerKeys, newLedgerId } from './ledger-entry';
import type { LedgerQuery, LedgerStore } from './ledger.store';
import { LEDGER_STORE } from './ledger.stores';

/** The ledger as it is read, and the usage store that writes it, on one backend. */
interface Ledger {
  ledger: LedgerStore;
  usage: UsageStore;
  /** Redis's command connection (its key prefix applied), to take an index member by hand. */
  redis?: RedisClient;
}

const ON_ONE_BACKEND: StoreMakers<Ledger> = {
  sqlite: async (sqlite) => ({
    ledger: await LEDGER_STORE.sqlite(sqlite),
    usage: await USAGE_STORE.sqlite(sqlite),
  }),
  redis: async (redis) => ({
    ledger: await LEDGER_STORE.redis(redis),
    usage: await USAGE_STORE.redis(redis),
    redis: redis.client,
  }),
};

const KEY_A = 'key_0123456789abcdef';
const KEY_B = 'key_fedcba9876543210';
const PRINCIPAL = 'prn_0123456789abcdef0123456789abcdef';
const RUN = 'run_0193f5a2c4e1c0ffee0123456789abcd';
const T0 = Date.parse('2026-11-27T08:00:00.000Z');
const SECOND = 1000;

interface Made {
  subject?: LedgerEntry['subject'];
  run?: string | null;
  tool?: string;
  credits?: number;
  kind?: LedgerEntry['kind'];
}

/** An entry made at `atMs`, as the invocation pipeline makes them. */
function entry(atMs: number, made: Made = {}): LedgerEntry {
  return {
    id: newLedgerId(atMs),
    at: new Date(atMs).toISOString(),
    subject: made.subject ?? { kind: 'key', id: KEY_A, external_id: 'cus_A' },
    run_id: made.run ?? null,
    tool: made.tool ?? 'greet',
    credits: made.credits ?? 1,
    kind: made.kind ?? 'charge',
    transport: 'rest',
    request_id: `req-${atMs}`,
    idempotency_key: null,
    invocation_id: null,
    source: null,
  };
}

const subjectA = { kind: 'key' as const, id: KEY_A, external_id: 'cus_A' };
const subjectB = { kind: 'key' as const, id: KEY_B, external_id: null };
const principal = { kind: 'principal' as const, id: PRINCIPAL, external_id: 'cus_P' };

/** Counts a call with its entry, as production does: the usage store, in one step. */
async function charge(usage: UsageStore, e: LedgerEntry): Promise<LedgerEntry> {
  const day = e.at.slice(0, 10);
  const counted: QuotaCharge = {
    day,
    dailyLimit: null,
    month: day.slice(0, 7),
    monthlyLimit: null,
    cost: e.credits,
    tool: e.tool,
    run: e.run_id ? { id: e.run_id, budget: 1_000_000 } : undefined,
    entry: e,
  };
  const result = await usage.consumeQuota(e.subject.id, counted);
  expect(result.allowed).toBe(true);
  return e;
}

/** Gives a charge's credits back, with its refund entry (negative credits), at `atMs`. */
async function refund(usage: UsageStore, charged: LedgerEntry, atMs: number): Promise<LedgerEntry> {
  const e = entry(atMs, {
    subject: charged.subject,
    run: charged.run_id,
    tool: charged.tool,
    credits: -charged.credits,
    kind: 'refund',
  });
  const day = charged.at.slice(0, 10);
  await usage.refund(charged.subject.id, {
    day,
    month: day.slice(0, 7),
    tool: charged.tool,
    credits: charged.credits,
    runId: charged.run_id,
    entry: e,
  });
  return e;
}

/**
 * Six entries a second apart from T0, of three subjects, two runs' worth, two tools, a refund:
 * what the reads below select from.
 */
async function fillSix(usage: UsageStore): Promise<LedgerEntry[]> {
  const at = (i: number) => T0 + i * SECOND;
  const e0 = await charge(usage, entry(at(0), { subject: subjectA, run: RUN }));
  const e1 = await charge(usage, entry(at(1), { subject: subjectB, tool: 'doctor', credits: 5 }));
  const e2 = await charge(usage, entry(at(2), { subject: principal }));
  const e3 = await charge(usage, entry(at(3), { subject: subjectA, tool: 'doctor', credits: 5 }));
  const e4 = await refund(usage, e3, at(4));
  const e5 = await charge(usage, entry(at(5), { subject: subjectA, run: RUN, credits: 2 }));
  return [e0, e1, e2, e3, e4, e5];
}

const ids = (entries: LedgerEntry[]) => entries.map((e) => e.id);
const ALL: LedgerQuery = { fromMs: T0, toMs: T0 + 3_600_000 };

/**
 * The ledger's store on SQLite and on Redis, its entries written as calls write them (the usage
 * store's consumeQuota and refund, on the same backend): pages in id order with a cursor, each
 * filter, the bounds of a range (from inclusive, to exclusive), a stream over many pages, the
 * purge of what is older, sums and subjects (what the doctor reconciles), and on Redis the
 * entries a process left out of the time index.
 */
onBothBackends('the ledger', ON_ONE_BACKEND, (current, kind) => {
  it('reads what the usage store wrote, in id (time) order, a page at a time after a cursor', async () => {
    const { ledger, usage } = current().store;
    const six = await fillSix(usage);
    expect(await ledger.page(ALL, 100)).toEqual(six);

    const first = await ledger.page(ALL, 4);
    expect(first).toEqual(six.slice(0, 4));
    const second = await ledger.page({ ...ALL, after: first[3].id }, 4);
    expect(second).toEqual(six.slice(4));
    expect(await ledger.page({ ...ALL, after: six[5].id }, 4)).toEqual([]);

    // Another connection (another instance) reads the same entries.
    const other = (await current().another()).ledger;
    expect(ids(await other.page(ALL, 100))).toEqual(ids(six));
  });

  it('keeps the entries a refused call would have written out', async () => {
    const { ledger, usage } = current().store;
    const refused = entry(T0);
    const day = refused.at.slice(0, 10);
    const result = await usage.consumeQuota(KEY_A, {
      day,
      dailyLimit: 0,
      month: day.slice(0, 7),
      monthlyLimit: null,
      cost: 1,
      tool: 'greet',
      entry: refused,
    });
    expect(result.allowed).toBe(false);
    expect(await ledger.page(ALL, 100)).toEqual([]);
  });

  it('filters by subject, external id, run and tool, alone and together', async () => {
    const { ledger, usage } = current().store;
    const [e0, e1, e2, e3, e4, e5] = await fillSix(usage);
    expect(await ledger.page({ ...ALL, subjectId: KEY_A }, 100)).toEqual([e0, e3, e4, e5]);
    expect(await ledger.page({ ...ALL, subjectId: PRINCIPAL }, 100)).toEqual([e2]);
    expect(await ledger.page({ ...ALL, externalId: 'cus_A' }, 100)).toEqual([e0, e3, e4, e5]);
    expect(await ledger.page({ ...ALL, externalId: 'cus_P' }, 100)).toEqual([e2]);
    expect(await ledger.page({ ...ALL, externalId: 'cus_none' }, 100)).toEqual([]);
    expect(await ledger.page({ ...ALL, runId: RUN }, 100)).toEqual([e0, e5]);
    expect(await ledger.page({ ...ALL, tool: 'doctor' }, 100)).toEqual([e1, e3, e4]);
    expect(await ledger.page({ ...ALL, subjectId: KEY_A, tool: 'doctor' }, 100)).toEqual([e3, e4]);
    expect(await ledger.page({ ...ALL, subjectId: KEY_B, runId: RUN }, 100)).toEqual([]);
    // A filtered page after a cursor.
    expect(await ledger.page({ ...ALL, subjectId: KEY_A, after: e3.id }, 1)).toEqual([e4]);
    expect(await ledger.page({ ...ALL, tool: 'doctor', after: e1.id }, 100)).toEqual([e3, e4]);
  });

  it('takes a range from `fromMs` inclusive to `toMs` exclusive, to the millisecond', async () => {
    const { ledger, usage } = current().store;
    const six = await fillSix(usage);
    const at = (i: number) => T0 + i * SECOND;
    expect(await ledger.page({ fromMs: at(1), toMs: at(4) }, 100)).toEqual(six.slice(1, 4));
    expect(await ledger.page({ fromMs: at(1) + 1, toMs: at(4) + 1 }, 100)).toEqual(six.slice(2, 5));
    expect(await ledger.page({ fromMs: at(2), toMs: at(2) }, 100)).toEqual([]);
    expect(await ledger.page({ fromMs: at(2), toMs: at(2) + 1 }, 100)).toEqual([six[2]]);
    expect(
      await ledger.page({ fromMs: at(0), toMs: at(6), subjectId: KEY_A, after: six[0].id }, 2),
    ).toEqual([six[3], six[4]]);
    expect(await ledger.page({ fromMs: at(6), toMs: at(100) }, 100)).toEqual([]);
  });

  it('streams a range over many pages, filtered or not, and past the chunks an index is read in', async () => {
    const { ledger, usage } = current().store;
    // 1,200 charges of A (three of Redis's chunks of 500 ids), every 100th a doctor call, then
    // three of B: a filter that passes few entries reads chunk after chunk.
    const written: LedgerEntry[] = [];
    for (let i = 0; i < 1200; i += 100) {
      written.push(
        ...(await Promise.all(
          Array.from({ length: 100 }, (_, j) =>
            charge(
              usage,
              entry(T0 + i + j, { subject: subjectA, tool: (i + j) % 100 ? 'greet' : 'doctor' }),
            ),
          ),
        )),
      );
    }
    for (let i = 0; i < 3; i++) {
      written.push(await charge(usage, entry(T0 + 5000 + i, { subject: subjectB })));
    }
    written.sort((a, b) => (a.id < b.id ? -1 : 1));

    const all: LedgerEntry[] = [];
    for await (const e of ledger.stream(ALL, 7)) all.push(e);
    expect(all).toHaveLength(1203);
    expect(ids(all)).toEqual(ids(written));

    const collect = async (query: LedgerQuery, pageSize?: number) => {
      const found: string[] = [];
      for await (const e of ledger.stream(query, pageSize)) found.push(e.id);
      return found;
    };
    expect(await collect({ ...ALL, subjectId: KEY_B }, 2)).toEqual(ids(written.slice(1200)));
    expect(await collect({ ...ALL, tool: 'doctor' }, 5)).toEqual(
      ids(written.filter((e) => e.tool === 'doctor')),
    );
    expect(await collect({ ...ALL, externalId: 'cus_A' })).toHaveLength(1200);
    // One page's worth exactly: the stream ends on the empty page after it.
    expect(await collect({ ...ALL, subjectId: KEY_B }, 3)).toHaveLength(3);
    // A stream starts after the query's cursor.
    expect(await collect({ ...ALL, after: written[1199].id }, 2)).toEqual(ids(written.slice(1200)));
  });

  it('purges at most `limit` entries made before `beforeMs`, and nothing newer', async () => {
    const { ledger, usage } = current().store;
    const six = await fillSix(usage);
    const at = (i: number) => T0 + i * SECOND;
    expect(await ledger.purge(at(3), 2)).toBe(2);
    expect(await ledger.page(ALL, 100)).toEqual(six.slice(2));
    expect(await ledger.purge(at(3), 1000)).toBe(1);
    expect(await ledger.page(ALL, 100)).toEqual(six.slice(3));
    // Nothing is older any more; the entry made at `beforeMs` itself stays.
    expect(await ledger.purge(at(3), 1000)).toBe(0);
    expect(await ledger.page(ALL, 100)).toEqual(six.slice(3));
    // Its subject's own reads forget them too.
    expect(await ledger.page({ ...ALL, subjectId: KEY_A }, 100)).toEqual(six.slice(3));
    expect(await ledger.page({ ...ALL, subjectId: PRINCIPAL }, 100)).toEqual([]);
    expect(await ledger.sums(KEY_B, ALL.fromMs, ALL.toMs)).toEqual({ charges: 0, credits: 0 });
  });

  it("sums a subject's entries in a range (refunds negative), and names the subjects with entries", async () => {
    const { ledger, usage } = current().store;
    await fillSix(usage);
    const at = (i: number) => T0 + i * SECOND;
    // A: 1 + 5 - 5 + 2 = 3 credits, three charges (the refund is not one).
    expect(await ledger.sums(KEY_A, ALL.fromMs, ALL.toMs)).toEqual({ charges: 3, credits: 3 });
    expect(await ledger.sums(KEY_A, at(0), at(4))).toEqual({ charges: 2, credits: 6 });
    expect(await ledger.sums(KEY_B, ALL.fromMs, ALL.toMs)).toEqual({ charges: 1, credits: 5 });
    expect(await ledger.sums('key_0000000000000000', ALL.fromMs, ALL.toMs)).toEqual({
      charges: 0,
      credits: 0,
    });

    expect((await ledger.subjects(ALL.fromMs, ALL.toMs)).sort()).toEqual(
      [KEY_A, KEY_B, PRINCIPAL].sort(),
    );
    expect((await ledger.subjects(at(1), at(3))).sort()).toEqual([KEY_B, PRINCIPAL].sort());
    expect(await ledger.subjects(at(4), at(5))).toEqual([KEY_A]);
    expect(await ledger.subjects(at(6), at(7))).toEqual([]);
  });

  it("keeps each subject's day sums as its entries are written (a refund on its charge's day), and names the day's subjects", async () => {
    const { ledger, usage } = current().store;
    await fillSix(usage);
    const days = ['2026-11-26', '2026-11-27'];
    expect(await ledger.activeSubjects(days, 10)).toEqual({
      subjects: [KEY_A, KEY_B, PRINCIPAL].sort(),
      total: 3,
    });
    expect(await ledger.activeSubjects(days, 2)).toEqual({
      subjects: [KEY_A, KEY_B, PRINCIPAL].sort().slice(0, 2),
      total: 3,
    });
    expect(await ledger.activeSubjects(['2026-11-25'], 10)).toEqual({ subjects: [], total: 0 });
    // A: 1 + 5 - 5 + 2 = 3 credits in four entries; nothing the day before.
    expect(await ledger.daySums(KEY_A, days)).toEqual([
      { day: '2026-11-26', credits: 0, entries: 0, unindexed: 0 },
      { day: '2026-11-27', credits: 3, entries: 4, unindexed: 0 },
    ]);
    expect(await ledger.daySums(KEY_B, ['2026-11-27'])).toEqual([
      { day: '2026-11-27', credits: 5, entries: 1, unindexed: 0 },
    ]);
    // The entries of one round (one group commit, one script a key), summed too.
    await Promise.all(
      [1, 2, 3].map((i) => charge(usage, entry(T0 + 10 * SECOND + i, { subject: subjectB }))),
    );
    expect(await ledger.daySums(KEY_B, ['2026-11-27'])).toEqual([
      { day: '2026-11-27', credits: 8, entries: 4, unindexed: 0 },
    ]);
  });

  if (kind === 'sqlite') {
    it('has no unindexed entries: one table holds them', async () => {
      const { ledger, usage } = current().store;
      await fillSix(usage);
      expect(await ledger.unindexed(KEY_A, ALL.fromMs, ALL.toMs, true)).toBe(0);
    });
  }

  if (kind === 'redis') {
    it('reports an entry missing from the time index, and indexes it again with apply', async () => {
      const { ledger, usage, redis } = current().store;
      const six = await fillSix(usage);
      expect(await ledger.unindexed(KEY_A, ALL.fromMs, ALL.toMs, false)).toBe(0);

      // As a process stopped between the script and the index would leave it.
      expect(await redis!.zrem(LedgerKeys.index, LedgerKeys.indexMember(six[3]))).toBe(1);
      expect(ids(await ledger.page(ALL, 100))).toEqual(ids([...six.slice(0, 3), ...six.slice(4)]));
      // Its subject's own reads still find it (its id set).
      expect(await ledger.page({ ...ALL, subjectId: KEY_A }, 100)).toContainEqual(six[3]);

      expect(await ledger.unindexed(KEY_A, ALL.fromMs, ALL.toMs, false)).toBe(1);
      expect(await ledger.unindexed(KEY_A, ALL.fromMs, ALL.toMs, false)).toBe(1);
      expect(await ledger.unindexed(KEY_B, ALL.fromMs, ALL.toMs, false)).toBe(0);
      // Outside the range asked about, it is not reported.
      expect(await ledger.unindexed(KEY_A, T0 + 4 * SECOND, ALL.toMs, false)).toBe(0);

      expect(await ledger.unindexed(KEY_A, ALL.fromMs, ALL.toMs, true)).toBe(1);
      expect(await ledger.unindexed(KEY_A, ALL.fromMs, ALL.toMs, false)).toBe(0);
      expect(await ledger.page(ALL, 100)).toEqual(six);
    });
  }
});
