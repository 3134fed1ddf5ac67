import type { NewLedgerEntry } from '../ledger';

/** Where a long-running call stands. */
export type InvocationStatus =
  'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'timed_out';

export const INVOCATION_STATUSES: readonly InvocationStatus[] = [
  'queued',
  'running',
  'succeeded',
  'failed',
  'cancelled',
  'timed_out',
];

/** Statuses of a call not yet over: an instance holds it. */
export const ACTIVE_STATUSES: readonly InvocationStatus[] = ['queued', 'running'];

export interface InvocationProgress {
  done: number;
  total: number | null;
  message: string | null;
}

/** How a call ended badly: the status and `{detail}` its synchronous answer would have had. */
export interface InvocationError {
  status: number;
  detail: unknown;
}

/**
 * A long-running call (docs/long-running-calls.md): who started it, its tool, where it stands,
 * and, once over, its result or error. Kept 24 hours after it ends.
 */
export interface InvocationRecord {
  /** `inv_` and 32 hex digits from a secure random source: unguessable (it is also an MCP task id). */
  id: string;
  /** The key or principal that started it: only it (or an admin:read caller) may see it. */
  caller_id: string;
  tool: string;
  status: InvocationStatus;
  progress: InvocationProgress | null;
  /** The tool's answer body (status `succeeded`). */
  result: unknown;
  error: InvocationError | null;
  /**
   * Whose error: `tool` (its own failure, a deadline: an MCP task still `completed`, with an
   * `isError` result) or `runtime` (the service could not finish it: an MCP task `failed`).
   */
  error_kind: 'tool' | 'runtime' | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** The instance running it: its lease (InvocationStore.renew) says whether it still does. */
  instance: string;
  /** A cancel was asked (on any instance): the running instance stops the call. */
  cancel_requested: boolean;
  /** When a finished call is forgotten (ms); null while it runs. */
  expires_ms: number | null;
  /**
   * The UTC day (`YYYY-MM-DD`) its credits were charged on, the month being that day's; null when
   * nothing was charged. A call that never started is refunded on that day and month.
   */
  charged_day: string | null;
  /** The credits it was charged. */
  charged_credits: number;
  /** The Idempotency-Key it was started with (its kept answer is forgotten when it is refunded). */
  idempotency_key: string | null;
  /** The ledger entry of its charge: a refund's entry gives it back (its subject, run, origin). */
  charge_entry: NewLedgerEntry | null;
}

/** What changes when a call moves on (its status, progress, outcome). */
export type InvocationChanges = Partial<
  Pick<
    InvocationRecord,
    | 'status'
    | 'progress'
    | 'result'
    | 'error'
    | 'error_kind'
    | 'started_at'
    | 'finished_at'
    | 'expires_ms'
  >
>;

/** Where a page of a caller's list starts: after this one, newest first. */
export interface InvocationPosition {
  created_at: string;
  id: string;
}

/**
 * Long-running calls: a record each, the caller's list, the leases of the instances running them
 * and the cancel marks any instance may set. A call runs on the instance that accepted it; the
 * store lets any instance answer for it, and notice when that instance stopped.
 */
export abstract class InvocationStore {
  abstract create(record: InvocationRecord): Promise<void>;
  /** The record, whatever its state (expired ones are gone); undefined for an unknown id. */
  abstract get(id: string): Promise<InvocationRecord | undefined>;
  /** A caller's calls, newest first, after `after`, of `status` when given, at most `limit`. */
  abstract list(
    callerId: string,
    page: { status?: InvocationStatus; after?: InvocationPosition; limit: number },
  ): Promise<InvocationRecord[]>;
  /** Every caller's calls, newest first, after `after`, of `status` when given, at most `limit`. */
  abstract listAll(page: {
    status?: InvocationStatus;
    after?: InvocationPosition;
    limit: number;
  }): Promise<InvocationRecord[]>;
  /**
   * Applies `changes` while the call is still in one of `from` (a call moves on once: a late
   * writer loses); the record after, or undefined when it was not in one of them (or is unknown).
   */
  abstract update(
    id: string,
    changes: InvocationChanges,
    from: readonly InvocationStatus[],
  ): Promise<InvocationRecord | undefined>;
  /** Marks a call to be cancelled (seen by the instance running it: `cancelsAmong`, `onCancel`). */
  abstract requestCancel(id: string): Promise<void>;
  /** Of these calls (this instance's), those a cancel was asked for. */
  abstract cancelsAmong(ids: readonly string[]): Promise<string[]>;
  /** Called at once when a cancel is asked on any instance, where the backend can tell (Redis). */
  abstract onCancel(listener: (id: string) => void): void;
  /** Whether `onCancel` hears of every cancel as it is asked (the marks are then a fallback). */
  abstract readonly announcesCancels: boolean;
  /** This instance still runs its calls, until `untilMs`. */
  abstract renew(instance: string, untilMs: number): Promise<void>;
  /** Whether the instance's lease still runs at `nowMs`. */
  abstract alive(instance: string, nowMs: number): Promise<boolean>;
  /**
   * Calls still queued or running, created before `createdBefore` (an ISO instant), of instances
   * whose lease lapsed by `nowMs`: their instance stopped without finishing them (at most
   * `limit`). An instance writes its lease after its first call's record, within a lease of it:
   * a younger call is never taken for an orphan.
   */
  abstract orphans(
    nowMs: number,
    createdBefore: string,
    limit: number,
  ): Promise<InvocationRecord[]>;
  /**
   * Forgets the calls that ended before their `expires_ms`; how many. Worked through in slices,
   * so that no request waits for all of it.
   */
  abstract purge(nowMs: number): Promise<number>;
}
