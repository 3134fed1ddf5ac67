import { decodePosition } from '../kernel/http/page-cursor';
import type { InvocationRecord, InvocationStatus } from './invocation.store';
import type { InvocationView } from './invocation.dto';
import { invalidQueryValue } from '../kernel/validation/query';

export { InvocationView } from './invocation.dto';

export const INVOCATIONS_PATH = '/api/v1/invocations';

/** Where an invocation's view is: the 202's `Location`. */
export function invocationLocation(id: string): string {
  return `${INVOCATIONS_PATH}/${id}`;
}

export function invocationView(record: InvocationRecord): InvocationView {
  return {
    id: record.id,
    tool: record.tool,
    status: record.status,
    progress: record.progress,
    result: record.status === 'succeeded' ? record.result : null,
    error: record.error,
    created_at: record.created_at,
    started_at: record.started_at,
    finished_at: record.finished_at,
  };
}

/** Whether a call is over. */
export function isFinished(status: InvocationStatus): boolean {
  return status !== 'queued' && status !== 'running';
}

/** An invocation's id: `inv_`, 12 hex digits of its creation time, then 80 random bits. */
export const INVOCATION_ID = /^inv_[0-9a-f]{32}$/;

/**
 * Where a page of invocations starts: after the call a list's `cursor` names (400 for a cursor the
 * service did not issue), or from the newest when there is none.
 */
export function invocationsAfter(cursor: unknown): { created_at: string; id: string } | undefined {
  if (cursor === undefined) return undefined;
  const position = decodePosition(cursor, INVOCATION_ID);
  if (!position) throw invalidQueryValue('cursor', 'this cursor was not issued by the service');
  return { created_at: position[0], id: position[1] };
}
