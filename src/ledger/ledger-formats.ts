import { LEDGER_COLUMNS, LedgerEntry, ledgerRow } from './ledger-entry';

/** A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  // A field a spreadsheet would run as a formula is led by a quote (OWASP's CSV injection advice).
  const safe = /^[=+\-@\t\r]/.test(text) && typeof value === 'string' ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The header line of the CSV export: the entry's fields in order, its subject flattened. */
export const CSV_HEADER = `${LEDGER_COLUMNS.join(',')}\r\n`;

export function csvLine(entry: LedgerEntry): string {
  const row = ledgerRow(entry);
  return `${LEDGER_COLUMNS.map((column) => csvField(row[column])).join(',')}\r\n`;
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
