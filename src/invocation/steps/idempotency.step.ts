import { Injectable } from '@nestjs/common';
import { ApiError, IdempotentReplay, ValidationFailed } from '../../errors/api-error';
import { retryAfterText } from '../../limits/rate-limit.headers';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PATTERN, IdempotencyService } from '../idempotency';
import { Invocation, InvocationStep, keyOf, PipelineStep, STEP_ORDER } from '../invocation';

/**
 * A tool call with an Idempotency-Key: replayed when its first answer is kept (not counted against
 * the quota, which comes next), 409 while the first still runs, 422 for the same key with another
 * body; otherwise claimed, so that the answer is kept once the tool has run.
 */
@PipelineStep({ order: STEP_ORDER.idempotency })
@Injectable()
export class IdempotencyStep implements InvocationStep {
  constructor(private readonly idempotency: IdempotencyService) {}

  run(invocation: Invocation): Promise<void> | void {
    const raw = invocation.idempotencyKey;
    if (invocation.tool === undefined || raw === undefined) return;
    return this.begin(invocation, invocation.tool, raw);
  }

  private async begin(invocation: Invocation, tool: string, raw: unknown): Promise<void> {
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
      keyOf(invocation).id,
      tool,
      raw,
      invocation.body,
    );
    switch (begun.state) {
      case 'done':
        throw new IdempotentReplay(begun.status, JSON.parse(begun.body) as unknown);
      case 'in_progress':
        throw new ApiError(409, 'A request with this Idempotency-Key is in progress');
      case 'mismatch':
        throw new ApiError(422, 'Idempotency-Key reused with a different request');
      case 'started':
        invocation.keepAnswer = (status, body, ran) =>
          this.idempotency.keep(claim, status, body, ran);
        (invocation.onRefused ??= []).push(() => {
          invocation.keepAnswer = undefined;
          return this.idempotency.release(claim);
        });
        return;
      case 'full': {
        // No eviction: a key that holds as much as it may waits for its oldest answer to expire.
        const wait = this.idempotency.secondsUntil(begun.retryAtMs);
        throw new ApiError(
          429,
          `Too many kept idempotent answers for this key. ${retryAfterText(wait)}`,
          { 'Retry-After': wait },
        );
      }
    }
  }
}
