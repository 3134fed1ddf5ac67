import { Injectable } from '@nestjs/common';
import { IdempotencyService } from '../../idempotency';
import { Call, callerOf, Decisions, InvocationStep, PipelineStep, STEP_ORDER } from '../call';

/**
 * A call to run in the background needs room in its caller's budget of kept answers for its
 * result (docs/long-running-calls.md#idempotency): 429 without, before anything is counted. Before
 * the rate limit, so that a call without an Idempotency-Key is counted against its rate and its
 * credits in one step of the store, as a synchronous call is. A call with no place at its tool is
 * refused at capacity anyway: it has no result to make room for.
 */
@PipelineStep({ order: STEP_ORDER.resultRoom })
@Injectable()
export class ResultRoomStep implements InvocationStep {
  constructor(private readonly idempotency: IdempotencyService) {}

  run(call: Call, decided: Readonly<Decisions>): Promise<void> | void {
    if (call.background === undefined || decided.ticket === undefined) return;
    return this.idempotency.checkResultRoom(callerOf(decided).id);
  }
}
