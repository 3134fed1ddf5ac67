import { LEDGER_COLUMNS, LedgerEntry } from './ledger-entry';

/** What makes a text field need more than itself: a formula's lead, a comma, a quote, a break. */
const SPECIAL = /^[=+\-@\t\r]|[",\r\n]/;

/** A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  if (!SPECIAL.test(value)) return value;
  // A field a spreadsheet would run as a formula is led by a quote (OWASP's CSV injection advice).
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The header line of the CSV export: the entry's fields in order, its subject flattened. */
export const CSV_HEADER = `${LEDGER_COLUMNS.join(',')}\r\n`;

/** An entry as a CSV record, its fields in LEDGER_COLUMNS' order. */
export function csvLine(entry: LedgerEntry): string {
  const { subject } = entry;
  return (
    `${csvField(entry.id)},${csvField(entry.at)},${subject.kind},${csvField(subject.id)},` +
    `${csvField(subject.external_id)},${csvField(entry.run_id)},${csvField(entry.tool)},` +
    `${entry.credits},${entry.kind},${entry.transport},${csvField(entry.request_id)},` +
    `${csvField(entry.idempotency_key)},${csvField(entry.invocation_id)},${csvField(entry.source)}\r\n`
  );
}

export function ndjsonLine(entry: LedgerEntry): string {
  return `${JSON.stringify(entry)}\n`;
}

/**
 * A charge as a Stripe Billing Meter event (POST /v1/billing/meter_events): `event_name` the
 * meter's, `timestamp` in whole seconds since the epoch, `identifier` the entry's id (Stripe keeps
 * one event per identifier), `payload` the customer's id and the credits as a string.
 */
export interface StripeMeterEvent {
  event_name: string;
  timestamp: number;
  identifier: string;
  payload: { value: string; stripe_customer_id: string };
}

/** A charge of a subject with an external id as a meter event; undefined for the others. */
export function stripeMeterEvent(
  entry: LedgerEntry,
  eventName: string,
): StripeMeterEvent | undefined {
  if (entry.kind !== 'charge' || entry.subject.external_id === null) return undefined;
  return {
    event_name: eventName,
    timestamp: Math.floor(Date.parse(entry.at) / 1000),
    identifier: entry.id,
    payload: { value: String(entry.credits), stripe_customer_id: entry.subject.external_id },
  };
}
