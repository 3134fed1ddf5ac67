import { randomFillSync } from 'node:crypto';

/** How a counted call reached the service. */
export type LedgerTransport = 'rest' | 'mcp' | 'stdio';

/**
 * One counted call (`charge`) or one refund (`refund`, negative credits): what a bill is built
 * from. Written by the usage store in the very step that counts it (docs/runs-and-ledger.md).
 */
export interface LedgerEntry {
  /** `le_`, 12 hex digits of its time in ms, 20 random ones: unique, and in time order. */
  id: string;
  /** RFC 3339, ms. */
  at: string;
  subject: { kind: 'key' | 'principal'; id: string; external_id: string | null };
  run_id: string | null;
  tool: string;
  credits: number;
  kind: 'charge' | 'refund';
  transport: LedgerTransport;
  request_id: string | null;
  idempotency_key: string | null;
  invocation_id: string | null;
  /** The source a source's tool came from (src/sources/); null for a native tool. */
  source: string | null;
}

/**
 * An entry as the usage store writes it: its time is its id's (`at` is derived when it is read, so
 * that a counted call formats no date).
 */
export type NewLedgerEntry = Omit<LedgerEntry, 'at'>;

/** Random bytes drawn in bulk from the system's source, 10 an id (80 bits). */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/** A new entry id for an entry made at `atMs` (see LedgerEntry.id). */
export function newLedgerId(atMs: number): string {
  if (poolAt + 10 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += 10;
  return `le_${ledgerIdTime(atMs)}${pool.toString('hex', poolAt - 10, poolAt)}`;
}

/** When the entry of this id was made, ms. */
export function ledgerIdMs(id: string): number {
  return parseInt(id.slice(3, 15), 16);
}

/** The UTC day (YYYY-MM-DD) an entry of this id was made on. */
export function ledgerDayOfId(id: string): string {
  return new Date(ledgerIdMs(id)).toISOString().slice(0, 10);
}

/**
 * An entry as the counting step hands it to the ledger's writer: with the day of the counters it
 * counts on (a charge's day; for a refund, the day of the charge it gives back).
 */
export interface LedgerWrite {
  entry: NewLedgerEntry;
  day: string;
}

/** An entry as written, with its time (from its id), its fields in their order. */
export function withTime(entry: NewLedgerEntry): LedgerEntry {
  return {
    id: entry.id,
    at: new Date(ledgerIdMs(entry.id)).toISOString(),
    subject: entry.subject,
    run_id: entry.run_id,
    tool: entry.tool,
    credits: entry.credits,
    kind: entry.kind,
    transport: entry.transport,
    request_id: entry.request_id,
    idempotency_key: entry.idempotency_key,
    invocation_id: entry.invocation_id,
    // Entries written before sources were have none (Redis keeps their JSON as it was).
    source: entry.source ?? null,
  };
}

/**
 * The time part of the ids of entries made at `atMs`: ids compare as their times do. Written as two
 * small integers (24 bits each), whose hex V8 makes without a double's radix conversion.
 */
export function ledgerIdTime(atMs: number): string {
  const ms = Math.max(0, Math.floor(atMs));
  const high = Math.floor(ms / 0x1000000);
  const low = ms - high * 0x1000000;
  return high.toString(16).padStart(6, '0') + low.toString(16).padStart(6, '0');
}

/** The first id an entry made at or after `atMs` may have: what a range by time starts from. */
export function ledgerIdFrom(atMs: number): string {
  return `le_${ledgerIdTime(atMs)}`;
}

/** The columns of an entry, in its field order, its subject flattened (CSV and SQLite alike). */
export const LEDGER_COLUMNS = [
  'id',
  'at',
  'subject_kind',
  'subject_id',
  'external_id',
  'run_id',
  'tool',
  'credits',
  'kind',
  'transport',
  'request_id',
  'idempotency_key',
  'invocation_id',
  'source',
] as const;

/** An entry as a row of LEDGER_COLUMNS. */
export type LedgerRow = Record<(typeof LEDGER_COLUMNS)[number], string | number | null>;

/** The columns of the embedded store's table: an entry's time and subject kind are its ids'. */
type StoredRow = Omit<LedgerRow, 'at' | 'subject_kind'>;

export function entryOfRow(row: StoredRow): LedgerEntry {
  const subjectId = String(row.subject_id);
  return withTime({
    id: String(row.id),
    subject: {
      kind: subjectId.startsWith('prn_') ? 'principal' : 'key',
      id: subjectId,
      external_id: row.external_id === null ? null : String(row.external_id),
    },
    run_id: row.run_id === null ? null : String(row.run_id),
    tool: String(row.tool),
    credits: Number(row.credits),
    kind: row.kind as 'charge' | 'refund',
    transport: row.transport as LedgerTransport,
    request_id: row.request_id === null ? null : String(row.request_id),
    idempotency_key: row.idempotency_key === null ? null : String(row.idempotency_key),
    invocation_id: row.invocation_id === null ? null : String(row.invocation_id),
    source: row.source === null || row.source === undefined ? null : String(row.source),
  });
}

/**
 * The ledger's tables on the embedded store. Written by the ledger's writer (SqliteLedgerWriter),
 * which the usage store calls on its counters connection, in the transaction that counts the call; `id` orders it by time (and holds it: no `at` column),
 * a subject's id its kind.
 */
export const LEDGER_MIGRATIONS = [
  // One b-tree, by id (time): a counted call writes one row and no index (docs/performance.md,
  // "What issue 43 (the ledger) costs greet"); a filter reads the range asked for.
  `CREATE TABLE ledger_entries (
     id TEXT PRIMARY KEY,
     subject_id TEXT NOT NULL,
     external_id TEXT,
     run_id TEXT,
     tool TEXT NOT NULL,
     credits INTEGER NOT NULL,
     kind TEXT NOT NULL,
     transport TEXT NOT NULL,
     request_id TEXT,
     idempotency_key TEXT,
     invocation_id TEXT
   ) WITHOUT ROWID;`,
  // Issue 61: the source of a source's tool (null for a native tool).
  `ALTER TABLE ledger_entries ADD COLUMN source TEXT;`,
  // What a subject's entries sum to on each day of the counters (a refund on its charge's day),
  // added to in the transaction that writes the entries: what doctor reconciles the counters with,
  // without reading the entries. Filled once from the entries already there (a refund on its own
  // day then).
  `CREATE TABLE ledger_days (
     day TEXT NOT NULL,
     subject_id TEXT NOT NULL,
     credits INTEGER NOT NULL,
     entries INTEGER NOT NULL,
     PRIMARY KEY (day, subject_id)
   ) WITHOUT ROWID;
   INSERT INTO ledger_days (day, subject_id, credits, entries)
     SELECT ledger_day(id), subject_id, SUM(credits), COUNT(*) FROM ledger_entries GROUP BY 1, 2;`,
];

/** The INSERT of one entry, its values as ledgerValues gives them. */
export const INSERT_LEDGER_ENTRY = `INSERT INTO ledger_entries (id, subject_id, external_id, run_id,
    tool, credits, kind, transport, request_id, idempotency_key, invocation_id, source)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** An entry's values for INSERT_LEDGER_ENTRY, field by field (no row object between). */
export function ledgerValues(entry: NewLedgerEntry): (string | number | null)[] {
  return [
    entry.id,
    entry.subject.id,
    entry.subject.external_id,
    entry.run_id,
    entry.tool,
    entry.credits,
    entry.kind,
    entry.transport,
    entry.request_id,
    entry.idempotency_key,
    entry.invocation_id,
    entry.source ?? null,
  ];
}

/**
 * Redis: a subject's entries live in its hash tag, beside its counters, written by the script that
 * counts the call (through the ledger's writer, LEDGER_WRITE_LUA): `{<subject>}:ledger` (hash: id
 * -> the entry's JSON), `{<subject>}:ledger:ids` (zset, score 0, by id: by time) and
 * `{<subject>}:ledger:day:<day>` (hash: `credits`, `entries`: what its entries of that counters'
 * day sum to). The time index `{ledger}:index` (zset, score 0, members `<id> <subject id>`) and
 * `{ledger}:subjects:<day>` (hash: subject id -> its entries of the day in the index) are written
 * beside it, or right after on a Cluster; a page by time across subjects reads the index, doctor
 * the day sums.
 */
export const LedgerKeys = {
  entries: (subjectId: string) => `{${subjectId}}:ledger`,
  ids: (subjectId: string) => `{${subjectId}}:ledger:ids`,
  day: (subjectId: string, day: string) => `{${subjectId}}:ledger:day:${day}`,
  index: '{ledger}:index',
  subjects: (day: string) => `{ledger}:subjects:${day}`,
  indexMember: (entry: Pick<NewLedgerEntry, 'id' | 'subject'>) => `${entry.id} ${entry.subject.id}`,
};
