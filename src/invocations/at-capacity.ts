import type { Caller } from '../subjects';
import type { CapacityOutcome } from '../kernel/http/request-scope';
import { ApiError } from '../kernel/errors/api-error';

/**
 * The 503 of a tool at capacity: the tool never ran, and the call is not charged its credits. A
 * caller past its fair share gets the same answer; `reason` tells them apart for the metrics.
 */
export class AtCapacity extends ApiError {
  constructor(
    tool: string,
    readonly reason: CapacityOutcome = 'capacity',
  ) {
    super(503, `Tool '${tool}' is at capacity; retry shortly.`, { 'Retry-After': 1 });
  }
}

/** Whose fair share of a tool a call counts against: its key's or its principal's. */
export function shareHolder(caller: Caller): string {
  return caller.id;
}
