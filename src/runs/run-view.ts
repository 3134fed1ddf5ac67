import type { Caller } from '../subjects';
import { RunRecord, runStatus } from './run.store';
import type { RunMe, RunView } from './runs.dto';

/** What `spending` (credits by tool) adds up to. */
function spentOf(spending: Record<string, number> | undefined): number {
  return spending ? Object.values(spending).reduce((sum, n) => sum + n, 0) : 0;
}

/** A run as the API shows it at `now`; with what it spent by tool when `spending` is given. */
export function runView(run: RunRecord, now: string, spending?: Record<string, number>): RunView {
  const spent = spentOf(spending);
  const status = runStatus(run, now);
  return {
    id: run.id,
    budget: run.budget,
    spent,
    remaining: Math.max(0, run.budget - spent),
    created_at: run.created_at,
    expires_at: run.expires_at,
    scopes: run.scopes,
    label: run.label,
    metadata: run.metadata,
    parent: run.parent,
    status,
    ended_reason: status === 'expired' ? 'expired' : run.ended_reason,
    ended_at: run.ended_at,
    ...(spending ? { spent_by_tool: spending } : {}),
  };
}

/**
 * A run's token's `/auth/me`: the run, what it may do now (`caller`'s scopes) and its parent's
 * kind and id, nothing else of the parent (its name, plan or limits are the parent's to see).
 */
export function runMe(run: RunRecord, caller: Caller, spending: Record<string, number>): RunMe {
  const spent = spentOf(spending);
  return {
    kind: 'run',
    run_id: run.id,
    label: run.label,
    parent: { kind: run.parent.kind, id: run.parent.id },
    scopes: caller.scopes,
    budget: run.budget,
    spent,
    remaining: Math.max(0, run.budget - spent),
    expires_at: run.expires_at,
  };
}
