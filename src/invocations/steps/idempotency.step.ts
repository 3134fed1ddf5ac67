import { Injectable } from '@nestjs/common';
import { ApiError, IdempotentReplay, ValidationFailed } from '../../kernel/errors/api-error';
import { ToolRegistry } from '../../tools/index';
import {
  IdempotencyEntry,
  IDEMPOTENCY_HEADER,
  IDEMPOTENCY_KEY_PATTERN,
  IdempotencyService,
} from '../../idempotency';
import {
  Call,
  callerOf,
  Decisions,
  InvocationStep,
  PipelineStep,
  STEP_ORDER,
  StepDecision,
} from '../call';

/**
 * A tool call with an Idempotency-Key: replayed when its first answer is kept (not counted against
 * the quota, which comes next), 409 while the first still runs, 422 for the same key with another
 * body, 429 while the key keeps as much as it may; otherwise claimed (an IdempotencyEntry), so that the answer is
 * kept once the tool has run.
 */
@PipelineStep({ order: STEP_ORDER.idempotency })
@Injectable()
export class IdempotencyStep implements InvocationStep {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly registry: ToolRegistry,
  ) {}

  run(call: Call, decided: Readonly<Decisions>): Promise<StepDecision> | void {
    if (call.tool === undefined || call.idempotencyKey === undefined) return;
    return this.begin(call, call.tool, call.idempotencyKey, decided).then((claim) => ({ claim }));
  }

  private async begin(
    call: Call,
    tool: string,
    raw: unknown,
    decided: Readonly<Decisions>,
  ): Promise<IdempotencyEntry> {
    if (typeof raw !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(raw)) {
      throw new ValidationFailed([
        {
          loc: ['header', IDEMPOTENCY_HEADER],
          msg: 'Value error, an Idempotency-Key is 1 to 255 visible ASCII characters',
          type: 'value_error',
        },
      ]);
    }
    const { claim, begun } = await this.idempotency.begin(
      callerOf(decided).id,
      tool,
      raw,
      call.body,
      this.registry.get(tool)?.runtime.timeoutMs,
    );
    switch (begun.state) {
      case 'done':
        throw new IdempotentReplay(begun.status, JSON.parse(begun.body) as unknown);
      case 'in_progress':
        throw new ApiError(409, 'A request with this Idempotency-Key is in progress');
      case 'mismatch':
        throw new ApiError(422, 'Idempotency-Key reused with a different request');
      case 'full':
        // No eviction: a key that holds as much as it may waits for its oldest answer to expire.
        throw this.idempotency.budgetFull(begun.retryAtMs);
      case 'started':
        return new IdempotencyEntry(this.idempotency, claim);
    }
  }
}
