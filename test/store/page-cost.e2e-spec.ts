import { AUDIT_STORE } from '../../src/audit/audit.stores';
import { INVOCATION_STORE } from '../../src/invocations/invocation.stores';
import type { InvocationRecord } from '../../src/invocations/invocation.store';
import { makeStore, StoreMakers } from '../../src/kernel/store/store.module';
import { newLedgerId } from '../../src/ledger/ledger-entry';
import { LEDGER_STORE } from '../../src/ledger/ledger.stores';
import type { LedgerStore } from '../../src/ledger/ledger.store';
import type { UsageStore } from '../../src/limits/usage.store';
import { USAGE_STORE } from '../../src/limits/limits.stores';
import { RUN_STORE } from '../../src/runs/runs.stores';
import { KEY_STORE, PRINCIPAL_STORE } from '../../src/subjects/subjects.stores';
import { WEBHOOK_STORE } from '../../src/webhooks/webhooks.stores';
import { tempDataDir } from '../support/app';
import { usingSharedRedis } from '../support/redis';
import { CountedBackend, countedRedis, countedSqlite, StoreRead } from '../support/store-reads';
import { newKeyRecord } from '../support/key-records';

/**
 * A list's thousandth page costs the store what its first does (issue 46): each paged list of the
 * API is filled through its store's own code, then its first page and its 1,000th (pages of one,
 * reached by the cursor of the 999th record) are read as the API reads them (one record more than
 * the page, to know whether another follows; a search reads its batch), and what the store read
 * for each is compared. On SQLite (project `e2e`): the statements a page runs, each planned as a
 * seek (`SEARCH`), never a `SCAN`, a sort of its own (`TEMP B-TREE`) or an `OFFSET`. On Redis
 * (project `e2e-redis`, on a redis-server of the spec's own): the commands a page sends, as many
 * and on as many keys at the 1,000th page as at the first, none skipping entries by an offset.
 */

const T0 = Date.parse('2026-11-27T08:00:00.000Z');
const at = (i: number) => new Date(T0 + i * 1000).toISOString();
const hex = (i: number, width: number) => i.toString(16).padStart(width, '0');
/** The page measured deep: pages of one record, the 1,000th. */
const DEEP_PAGE = 1000;

/** A paged list as the API reads it from its store: a page after a position, in its order. */
interface PagedList<R, P> {
  /** The API route (and its store call). */
  name: string;
  /** What the store reads for a page (the page and one more; a search, its batch). */
  limit: number;
  read(after: P | undefined, limit: number): Promise<R[]>;
  position(record: R): P;
}

/** A concern's store made on the measured backend, its lists, and how they are filled. */
interface Concern<S> {
  store: StoreMakers<S>;
  fill(store: S): Promise<unknown>;
  lists(store: S): PagedList<never, never>[];
}

const list = <R, P>(l: PagedList<R, P>) => l as unknown as PagedList<never, never>;

/** `count` calls of `make`, a hundred at a time. */
async function times(count: number, make: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < count; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, count - i) }, (_, j) => make(i + j)));
  }
}

const keys: Concern<Awaited<ReturnType<typeof KEY_STORE.sqlite>>> = {
  store: KEY_STORE,
  fill: (store) => times(1600, (i) => store.insertKey(newKeyRecord(i, `key_${hex(i, 16)}`, at(i)))),
  lists: (store) => {
    const read = (after: { created_at: string; id: string } | undefined, limit: number) =>
      store.listKeys({ after, limit });
    const position = (r: { created_at: string; id: string }) => r;
    return [
      list({ name: 'GET /api/v1/auth/api-keys (listKeys)', limit: 2, read, position }),
      list({ name: 'GET /api/v1/admin/api-keys (listKeys, a batch)', limit: 500, read, position }),
    ];
  },
};

const principals: Concern<Awaited<ReturnType<typeof PRINCIPAL_STORE.sqlite>>> = {
  store: PRINCIPAL_STORE,
  fill: (store) =>
    times(1200, (i) =>
      store.ensurePrincipal({
        id: `prn_${hex(i, 32)}`,
        issuer: 'https://issuer.example',
        subject: `user-${i}`,
        client_id: 'agent',
        first_seen_at: at(i),
        last_seen_at: at(i),
      }),
    ),
  lists: (store) => [
    list({
      name: 'GET /api/v1/auth/principals (listPrincipals)',
      limit: 2,
      read: (after: { first_seen_at: string; id: string } | undefined, limit) =>
        store.listPrincipals({ after, limit }),
      position: (r) => r,
    }),
  ],
};

const audit: Concern<Awaited<ReturnType<typeof AUDIT_STORE.sqlite>>> = {
  store: AUDIT_STORE,
  fill: (store) =>
    times(1600, (i) =>
      store.appendAudit(
        {
          at: at(i),
          actor_key_id: 'key_0000000000000000',
          actor_principal_id: null,
          action: 'api_key.update',
          target: `key_${hex(i, 16)}`,
          request_id: null,
          details: { n: i },
        },
        at(-1),
      ),
    ),
  lists: (store) => {
    const read = (before: number | undefined, limit: number) =>
      store.listAudit({ before, limit, since: at(-1) });
    const position = (entry: { id: number }) => entry.id;
    return [
      list({ name: 'GET /api/v1/audit (listAudit)', limit: 2, read, position }),
      list({ name: 'GET /api/v1/admin/audit (listAudit, a batch)', limit: 500, read, position }),
    ];
  },
};

const SUBJECTS = ['key_000000000000000a', 'key_000000000000000b'];
const ledger: Concern<{ ledger: LedgerStore; usage: UsageStore }> = {
  store: {
    sqlite: async (s) => ({
      ledger: await LEDGER_STORE.sqlite(s),
      usage: await USAGE_STORE.sqlite(s),
    }),
    redis: async (r) => ({
      ledger: await LEDGER_STORE.redis(r),
      usage: await USAGE_STORE.redis(r),
    }),
  },
  // Two keys' calls, one after the other, each counted with its entry as the service counts it.
  fill: ({ usage }) =>
    times(2200, (i) => {
      const subject = { kind: 'key' as const, id: SUBJECTS[i % 2], external_id: null };
      const entry = {
        id: newLedgerId(T0 + i * 1000),
        subject,
        run_id: null,
        tool: 'greet',
        credits: 1,
        kind: 'charge' as const,
        transport: 'rest' as const,
        request_id: null,
        idempotency_key: null,
        invocation_id: null,
        source: null,
      };
      const day = at(i).slice(0, 10);
      return usage.consumeQuota(subject.id, {
        ...{ day, dailyLimit: null, month: day.slice(0, 7), monthlyLimit: null },
        ...{ cost: 1, tool: 'greet', entry },
      });
    }),
  lists: ({ ledger: store }) => {
    const range = { fromMs: T0 - 1000, toMs: T0 + 86_400_000 };
    const position = (entry: { id: string }) => entry.id;
    return [
      list({
        name: 'GET /api/v1/ledger (page)',
        limit: 2,
        read: (after: string | undefined, limit) => store.page({ ...range, after }, limit),
        position,
      }),
      list({
        name: 'GET /api/v1/ledger?subject= (page of a key)',
        limit: 2,
        read: (after: string | undefined, limit) =>
          store.page({ ...range, after, subjectId: SUBJECTS[0] }, limit),
        position,
      }),
    ];
  },
};

const CALLERS = ['key_00000000000000c1', 'key_00000000000000c2'];
const invocation = (i: number): InvocationRecord => ({
  id: `inv_${hex(i, 32)}`,
  caller_id: CALLERS[i % 2],
  tool: 'slow',
  status: 'succeeded',
  progress: null,
  result: { n: i },
  error: null,
  error_kind: null,
  created_at: at(i),
  started_at: at(i),
  finished_at: at(i),
  instance: 'instance-a',
  cancel_requested: false,
  expires_ms: null,
  charged_day: at(i).slice(0, 10),
  charged_credits: 1,
  idempotency_key: null,
  charge_entry: null,
});

const invocations: Concern<Awaited<ReturnType<typeof INVOCATION_STORE.sqlite>>> = {
  store: INVOCATION_STORE,
  fill: (store) => times(2200, (i) => store.create(invocation(i))),
  lists: (store) => {
    type Position = { created_at: string; id: string };
    const position = (r: Position) => ({ created_at: r.created_at, id: r.id });
    return [
      list({
        name: 'GET /api/v1/invocations (list of a caller)',
        limit: 2,
        read: (after: Position | undefined, limit) => store.list(CALLERS[0], { after, limit }),
        position,
      }),
      list({
        name: 'GET /api/v1/admin/invocations (listAll)',
        limit: 2,
        read: (after: Position | undefined, limit) => store.listAll({ after, limit }),
        position,
      }),
    ];
  },
};

const PARENT = 'key_00000000000000d1';
const runs: Concern<Awaited<ReturnType<typeof RUN_STORE.sqlite>>> = {
  store: RUN_STORE,
  fill: (store) =>
    times(1200, (i) =>
      store.insert(
        {
          id: `run_${hex(T0 + i * 1000, 12)}${hex(i, 20)}`,
          token_hash: `hash-of-run-${i}`,
          parent: { kind: 'key', id: PARENT },
          budget: 100,
          scopes: ['services:read'],
          label: null,
          metadata: {},
          created_at: at(i),
          expires_at: at(i + 86_400),
          ended_at: null,
          ended_reason: null,
        },
        1_000_000,
      ),
    ),
  lists: (store) => {
    const now = at(0);
    const position = (run: { id: string }) => run.id;
    return [
      list({
        name: 'GET /api/v1/runs (list of a key)',
        limit: 2,
        read: (before: string | undefined, limit) =>
          store.list({ parentId: PARENT, before, limit, now }),
        position,
      }),
      list({
        name: 'GET /api/v1/runs (admin: every run)',
        limit: 2,
        read: (before: string | undefined, limit) => store.list({ before, limit, now }),
        position,
      }),
    ];
  },
};

const ENDPOINT = 'whe_0000000000000001';
const webhooks: Concern<Awaited<ReturnType<typeof WEBHOOK_STORE.sqlite>>> = {
  store: WEBHOOK_STORE,
  fill: async (store) => {
    await store.createEndpoint(
      {
        id: ENDPOINT,
        url: 'https://hooks.example/a',
        events: ['*'],
        description: null,
        enabled: true,
        disabled_reason: null,
        secrets: [{ value: 'whsec_c2VjcmV0', expires_at: null }],
        failing_since: null,
        consecutive_failures: 0,
        backlog_failed: 0,
        backlog_failed_at: null,
        created_at: at(0),
        updated_at: at(0),
      },
      10,
    );
    const deliveries = Array.from({ length: 1200 }, (_, i) => ({
      id: `dlv_${hex(T0 + i * 1000, 12)}${hex(i, 20)}`,
      endpoint_id: ENDPOINT,
      event_id: `msg_${i}`,
      type: 'webhook.test',
      payload: '{}',
      attempt: 1,
      status: 'succeeded' as const,
      response_status: 200,
      error: null,
      at: at(i),
      last_attempt_at: at(i),
      next_attempt_at: at(i),
    }));
    for (let i = 0; i < deliveries.length; i += 100) {
      await store.enqueue(deliveries.slice(i, i + 100), 10_000, at(0));
    }
  },
  lists: (store) => [
    list({
      name: 'GET /api/v1/webhooks/:id/deliveries (listDeliveries)',
      limit: 2,
      read: (before: string | undefined, limit) =>
        store.listDeliveries(ENDPOINT, { before, limit }),
      position: (delivery: { id: string }) => delivery.id,
    }),
  ],
};

const CONCERNS = { keys, principals, audit, ledger, invocations, runs, webhooks } as Record<
  string,
  Concern<unknown>
>;

/** The position the 1,000th page of one starts after: the 999th record's, read page by page. */
async function deepCursor<R, P>(paged: PagedList<R, P>): Promise<P> {
  let after: P | undefined;
  for (let read = 0; ;) {
    const page = await paged.read(after, 100);
    for (const record of page) {
      after = paged.position(record);
      if (++read === DEEP_PAGE - 1) return after;
    }
    if (page.length < 100) throw new Error(`${paged.name}: fewer than ${DEEP_PAGE} records`);
  }
}

/**
 * What a page's cost is compared by. SQLite: each statement's table and the index it walks (a first
 * page walks it from its start, a later one seeks into it). Redis: each command and the kind of key
 * it names (the ids left out), and how many keys the page names.
 */
function cost(reads: StoreRead[]): { steps: string[]; keys: number } {
  const steps = reads.map((r) => (r.plan ? r.plan.map(walked).join('; ') : command(r.sent)));
  const keys = new Set(reads.filter((r) => !r.plan).map((r) => r.sent.split(' ')[1])).size;
  return { steps: steps.sort(), keys };
}

/** A plan's step as the table and the index it reads by (`api_keys by api_keys_order`). */
function walked(step: string): string {
  const [, table, index] =
    /^(?:SCAN|SEARCH) (\w+)(?: USING (?:COVERING )?INDEX (\w+))?/.exec(step) ?? [];
  return table ? `${table} by ${index ?? 'its primary key'}` : step;
}

/** A Redis command as compared: its name, and its first key's kind (the id left out). */
const command = (sent: string) =>
  sent
    .split(' ')
    .slice(0, 2)
    .join(' ')
    .replace(/[0-9a-f]{12,}/g, '…');

/**
 * A page costs what its depth does not change: SQLite walks an index in the list's order (no
 * sort of its own, no OFFSET), seeking (SEARCH) from a cursor; Redis starts a range at the cursor
 * (no offset but 0, no rank but the first).
 */
function expectBounded(reads: StoreRead[], from: 'start' | 'cursor'): void {
  for (const read of reads) {
    if (read.plan) {
      expect(read.sent).not.toMatch(/\bOFFSET\b/i);
      const steps =
        from === 'cursor' ? / => SEARCH / : / => (SEARCH |SCAN \w+ USING INDEX |SCAN \w+$)/;
      for (const step of read.plan) expect(`${read.sent} => ${step}`).toMatch(steps);
    } else {
      expect(read.sent).not.toMatch(/\bLIMIT (?!0 )/i);
      expect(read.sent).not.toMatch(/^zrange(?!by)\S* \S+ [1-9]/i);
    }
  }
}

const kind = usingSharedRedis() ? 'redis' : 'sqlite';

describe(`the cost of a list's 1,000th page, on ${kind} (issue 46)`, () => {
  let counted: CountedBackend;
  const stores = new Map<string, unknown>();

  beforeAll(async () => {
    counted =
      kind === 'redis' ? await countedRedis(tempDataDir()) : await countedSqlite(tempDataDir());
    for (const [name, concern] of Object.entries(CONCERNS)) {
      const store = await makeStore(counted.backend, concern.store);
      await concern.fill(store);
      stores.set(name, store);
    }
  }, 60_000);
  afterAll(() => counted?.close());

  const cases = Object.entries(CONCERNS).flatMap(([name, concern]) =>
    concern.lists({}).map((l, i) => [l.name, name, i] as const),
  );

  it.each(cases)('%s: the 1,000th page reads what the first does', async (_, name, i) => {
    const paged = CONCERNS[name].lists(stores.get(name))[i];
    const cursor = await deepCursor(paged);
    const first = await counted.measure(() => paged.read(undefined, paged.limit));
    const deep = await counted.measure(() => paged.read(cursor, paged.limit));
    expect(first.length).toBeGreaterThan(0);
    expectBounded(first, 'start');
    expectBounded(deep, 'cursor');
    expect(cost(deep)).toEqual(cost(first));
    // No batch past the page: an index's range, then the records asked for (one command each).
    expect(first.length).toBeLessThanOrEqual(paged.limit + 1);
  });
});
