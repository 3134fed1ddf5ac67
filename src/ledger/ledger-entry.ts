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
  });
}

/**
 * The ledger's table on the embedded store. Written by the usage store on its counters connection,
 * in the transaction that counts the call; `id` orders it by time (and holds it: no `at` column),
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
];

/** The INSERT of one entry, its values as ledgerValues gives them. */
export const INSERT_LEDGER_ENTRY = `INSERT INTO ledger_entries (id, subject_id, external_id, run_id,
    tool, credits, kind, transport, request_id, idempotency_key, invocation_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

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
  ];
}

/**
 * Redis: a subject's entries live in its hash tag, beside its counters, written by the script that
 * counts the call: `{<subject>}:ledger` (hash: id -> the entry's JSON) and `{<subject>}:ledger:ids`
 * (zset, score 0, by id: by time). The time index `{ledger}:index` (zset, score 0, members
 * `<id> <subject id>`) is written right after; a page by time across subjects reads it.
 */
export const LedgerKeys = {
  entries: (subjectId: string) => `{${subjectId}}:ledger`,
  ids: (subjectId: string) => `{${subjectId}}:ledger:ids`,
  index: '{ledger}:index',
  indexMember: (entry: Pick<NewLedgerEntry, 'id' | 'subject'>) => `${entry.id} ${entry.subject.id}`,
};
