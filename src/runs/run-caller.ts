import type { ApiKeyRecord, AuthenticatedPrincipal, Caller, PrincipalRecord } from '../subjects';
import { effectiveRunScopes } from './run-access';
import type { RunRecord } from './run.store';

/**
 * The caller a run's token makes: its parent's, with the run's scopes its parent still holds, and
 * the run. A principal's run holds the scopes of the token that made (or last extended) it, at
 * most: the principal's record holds every scope its tokens carried (none recorded: all), which
 * narrows nothing of them.
 */
export function runCaller(
  run: RunRecord,
  parent: ApiKeyRecord | PrincipalRecord,
  planOf: (principal: PrincipalRecord) => string,
): Caller {
  const within = { id: run.id, budget: run.budget };
  if ('hash' in parent) {
    const { hash: _hash, previous_hash: _previous, ...fields } = parent;
    return {
      kind: 'key',
      ...fields,
      scopes: effectiveRunScopes(run.scopes, parent.scopes),
      run: within,
    };
  }
  const caller: AuthenticatedPrincipal = {
    kind: 'principal',
    id: parent.id,
    issuer: parent.issuer,
    subject: parent.subject,
    client_id: parent.client_id,
    external_id: parent.external_id,
    scopes: parent.scopes ? effectiveRunScopes(run.scopes, parent.scopes) : run.scopes,
    expires_at: run.expires_at,
    plan: planOf(parent),
    daily_limit: parent.daily_limit,
    monthly_limit: parent.monthly_limit,
    rate_limit: parent.rate_limit,
    revision: parent.revision,
    run: within,
  };
  return caller;
}
