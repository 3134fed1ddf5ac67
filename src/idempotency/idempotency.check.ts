import { Traced } from '../tracing';
import { Injectable } from '@nestjs/common';
import { ApiError, IdempotentReplay, ValidationFailed } from '../kernel/errors/api-error';
import {
  IdempotencyEntry,
  IDEMPOTENCY_HEADER,
  IDEMPOTENCY_KEY_PATTERN,
  IdempotencyService,
} from './idempotency.service';

/** A tool call that carries an Idempotency-Key, as the checks of the call know it. */
export interface IdempotentCall {
  /** Whose kept answers the key is one of: the caller's id. */
  callerId: string;
  tool: string;
  /** The key as received (REST header, MCP `_meta`). */
  key: unknown;
  /** The call's body (MCP: its arguments), whose fingerprint the key is kept with. */
  body: unknown;
  /** The tool's deadline: how long an entry of a call still running is held. */
  timeoutMs?: number;
}

/**
 * A tool call with an Idempotency-Key: replayed when its first answer is kept (not charged its
 * credits, which come next), 409 while the first still runs, 422 for the same key with another
 * body, 429 while the caller keeps as many answers as it may; otherwise an IdempotencyEntry, whose
 * answer is kept once the tool has run.
 */
@Injectable()
export class IdempotencyCheck {
  constructor(private readonly idempotency: IdempotencyService) {}

  @Traced('check idempotency')
  async claim(call: IdempotentCall): Promise<IdempotencyEntry> {
    if (typeof call.key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(call.key)) {
      throw new ValidationFailed([
        {
          loc: ['header', IDEMPOTENCY_HEADER],
          msg: 'Value error, an Idempotency-Key is 1 to 255 visible ASCII characters',
          type: 'value_error',
        },
      ]);
    }
    const { claim, begun } = await this.idempotency.begin(
      call.callerId,
      call.tool,
      call.key,
      call.body,
      call.timeoutMs,
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
