import type { QuotaCharge } from '../src/limits/usage.store';
import { newLedgerId, type LedgerEntry } from '../src/ledger';

/**
 * The `i`th counted greet of a bench's fill, at `at` (ms), as a call's count writes it: one credit
 * of `subject` (its external id a customer's), with its ledger entry; in `run` when given, over REST
 * but one call in three over MCP. What bench:ledger-bytes and bench:data write through the usage
 * store's own code.
 */
export function greetCharge(
  i: number,
  at: number,
  subject: string,
  run?: NonNullable<QuotaCharge['run']>,
): QuotaCharge {
  const entry: LedgerEntry = {
    id: newLedgerId(at),
    at: new Date(at).toISOString(),
    subject: { kind: 'key', id: subject, external_id: 'cus_NffrFeUfNV2Hib' },
    run_id: run?.id ?? null,
    tool: 'greet',
    credits: 1,
    kind: 'charge',
    transport: i % 3 ? 'rest' : 'mcp',
    request_id: `5b0c1a52-62b8-4b8e-9d4f-${String(i).padStart(12, '0')}`,
    idempotency_key: null,
    invocation_id: null,
    source: null,
  };
  const day = entry.at.slice(0, 10);
  return {
    day,
    month: day.slice(0, 7),
    dailyLimit: null,
    monthlyLimit: null,
    cost: 1,
    tool: 'greet',
    ...(run ? { run } : {}),
    entry,
  };
}
