import type { InvocationRecord, InvocationStatus } from '../../store/invocations/invocation.store';
import type { InvocationView } from '../../tools/invocation.dto';

export { InvocationView } from '../../tools/invocation.dto';

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
