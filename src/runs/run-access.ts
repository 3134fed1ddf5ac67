import { hash, randomBytes, randomUUID } from 'node:crypto';
import { ANY_TOOL_SCOPE, hasScope, TOOL_SCOPE_PREFIX } from '../kernel/auth/scopes';

/** `sk_run_` and 64 hex digits: a bearer credential every client that takes a key takes. */
export const RUN_TOKEN_PATTERN = /^sk_run_[0-9a-f]{64}$/;

export function newRunToken(): string {
  return `sk_run_${randomBytes(32).toString('hex')}`;
}

/** One-shot, as a key's: a fraction of the cost of a Hash object on every call. */
export function hashRunToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** `run_`, 12 hex digits of the time in ms, 20 random ones: unique, in time order. */
export function newRunId(atMs: number): string {
  const random = randomUUID().replace(/-/g, '');
  const time = Math.floor(atMs).toString(16).padStart(12, '0');
  return `run_${time}${random.slice(0, 12)}${random.slice(13, 16)}${random.slice(17, 22)}`;
}

/** The only scopes a run may hold: discovery and tools, never an admin one. */
export function isRunScope(scope: string): boolean {
  return (
    scope === 'services:read' ||
    scope === 'services:execute' ||
    scope === ANY_TOOL_SCOPE ||
    scope.startsWith(TOOL_SCOPE_PREFIX)
  );
}

/** A creator's tool scopes, as a run takes them by default (a wildcard as discovery and tools). */
export function defaultRunScopes(held: readonly string[]): string[] {
  const scopes = new Set<string>();
  for (const scope of held) {
    if (scope === '*' || scope === 'services:*') {
      scopes.add('services:read').add('services:execute');
    } else if (isRunScope(scope)) scopes.add(scope);
  }
  return [...scopes];
}

/** What a run may do now: its scopes that its parent still holds. */
export function effectiveRunScopes(run: readonly string[], parent: readonly string[]): string[] {
  return run.filter((scope) => hasScope(parent, scope));
}

/**
 * What a run holds once a token that holds `held` lends it its time: what both allow. A run's scope
 * the token covers is kept; one the token holds only in part (`services:execute` against the
 * token's `services:execute:greet`) gives way to the token's narrower run scopes it covers.
 */
export function narrowedRunScopes(run: readonly string[], held: readonly string[]): string[] {
  const kept = run.filter((scope) => hasScope(held, scope));
  for (const scope of held) {
    if (isRunScope(scope) && hasScope(run, scope) && !hasScope(kept, scope)) kept.push(scope);
  }
  return kept;
}
