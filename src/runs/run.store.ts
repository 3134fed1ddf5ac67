/** Why a run ended before its time, or `expired`. */
export type RunEndReason = 'deleted' | 'expired' | 'parent_revoked' | 'parent_disabled';

/** Where a run stands: `active` until it is ended or its time is out. */
export type RunStatus = 'active' | 'ended' | 'expired';

/**
 * A run (docs/runs-and-ledger.md): a budget of credits a key or a principal (its parent) hands an
 * agent for one task, with a token of its own. Its token is never stored, only its SHA-256 hash.
 */
export interface RunRecord {
  /** `run_`, 12 hex digits of its creation time in ms, 20 random ones. */
  id: string;
  token_hash: string;
  parent: { kind: 'key' | 'principal'; id: string };
  budget: number;
  scopes: string[];
  label: string | null;
  metadata: Record<string, string>;
  created_at: string;
  expires_at: string;
  ended_at: string | null;
  ended_reason: RunEndReason | null;
}

/** What a PATCH may change of a run. */
export type RunChanges = Partial<Pick<RunRecord, 'budget' | 'label'>>;

/** What a PATCH's `ttl_seconds` gives a run: a new expiry, and the scopes it keeps until then. */
export type RunLease = Pick<RunRecord, 'expires_at' | 'scopes'>;

/** Which runs a list shows, newest first, after `before` (an id). */
export interface RunFilter {
  parentId?: string;
  status?: RunStatus;
  before?: string;
  limit: number;
  /** Now, for what is `active` and what `expired`. */
  now: string;
}

/** The status of a run at `now`. */
export function runStatus(run: RunRecord, now: string): RunStatus {
  if (run.ended_reason === 'expired') return 'expired';
  if (run.ended_at !== null) return 'ended';
  return run.expires_at <= now ? 'expired' : 'active';
}

/** Runs: their records, the lookup from a token's hash, the lists. */
export abstract class RunStore {
  /**
   * Inserts a run unless its parent already has `maxActive` active runs at `now`: false then, and
   * nothing is written.
   */
  abstract insert(run: RunRecord, maxActive: number): Promise<boolean>;
  abstract findByHash(hash: string): Promise<RunRecord | undefined>;
  abstract find(id: string): Promise<RunRecord | undefined>;
  abstract list(filter: RunFilter): Promise<RunRecord[]>;
  /** The run after the change; undefined for an unknown run. */
  abstract update(id: string, changes: RunChanges): Promise<RunRecord | undefined>;
  /**
   * Gives a run active at `now` (neither ended nor expired) a new lease: its expiry (and its place
   * among its parent's active runs) and its scopes. The record after; undefined for a run that is
   * not active, which is left as it was.
   */
  abstract extend(id: string, lease: RunLease, now: string): Promise<RunRecord | undefined>;
  /** Ends an active run (the first end stands); the record after, or undefined when it had ended. */
  abstract end(id: string, reason: RunEndReason, at: string): Promise<RunRecord | undefined>;
  /** Forgets runs that ended (or expired) before `before`; the records forgotten. */
  abstract purge(before: string, limit: number): Promise<RunRecord[]>;
}
