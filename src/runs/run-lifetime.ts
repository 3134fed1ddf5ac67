import { ApiError } from '../kernel/errors/api-error';
import type { Caller } from '../subjects';
import { narrowedRunScopes } from './run-access';
import type { RunLease, RunRecord } from './run.store';

export const RUN_TOKEN_EXPIRED = 'This token has expired: a run cannot outlive it.';
export const RUN_EXTENDED_BY_ITS_PRINCIPAL =
  "A principal's run is extended by that principal only, with a current token.";
export const RUN_SCOPES_NOT_HELD = "This token holds none of the run's scopes.";

/**
 * When a run given `ttlSeconds` now ends: never after `until` (the `exp` of the principal's token
 * that makes or extends it: a run holds no more time than its parent can still call for).
 */
export function runExpiry(ttlSeconds: number, nowMs: number, until?: string): string {
  const endMs = Math.min(nowMs + ttlSeconds * 1000, until ? Date.parse(until) : Infinity);
  if (endMs <= nowMs) throw new ApiError(403, RUN_TOKEN_EXPIRED);
  return new Date(endMs).toISOString();
}

/** The expiry of a run `caller` makes now: a principal's, clamped to its token's `exp`. */
export function createdRunExpiry(caller: Caller, ttlSeconds: number, nowMs: number): string {
  return runExpiry(ttlSeconds, nowMs, caller.kind === 'principal' ? caller.expires_at : undefined);
}

/**
 * What a PATCH's `ttl_seconds` gives `run` from now, or why not (403). A key's run lasts that long
 * (its calls end with its key anyway). A principal's run is extended by that principal only, with
 * the token it calls with: the run then ends no later than that token and keeps only what that
 * token allows too (docs/runs-and-ledger.md#runs-of-principals).
 */
export function runLease(
  caller: Caller,
  run: RunRecord,
  ttlSeconds: number,
  nowMs: number,
): RunLease {
  if (run.parent.kind === 'key') {
    return { expires_at: runExpiry(ttlSeconds, nowMs), scopes: run.scopes };
  }
  if (caller.kind !== 'principal' || caller.run || caller.id !== run.parent.id) {
    throw new ApiError(403, RUN_EXTENDED_BY_ITS_PRINCIPAL);
  }
  const scopes = narrowedRunScopes(run.scopes, caller.scopes);
  if (!scopes.length) throw new ApiError(403, RUN_SCOPES_NOT_HELD);
  return { expires_at: runExpiry(ttlSeconds, nowMs, caller.expires_at), scopes };
}
