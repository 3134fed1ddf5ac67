import type { ValidationIssue } from './validation-issue';
import { HttpException } from '@nestjs/common';

/**
 * An error answered as `{detail}` with the given status, plus any headers it names
 * (`WWW-Authenticate`, `Retry-After`, ...). The exception filter writes both.
 */
export class ApiError extends HttpException {
  constructor(
    status: number,
    readonly detail: unknown,
    readonly headers: Record<string, string | number> = {},
  ) {
    super({ detail }, status);
  }
}

/** A 400 list holds at most this many entries: what a client can make the service write is bounded. */
export const MAX_ISSUES = 20;

export class ValidationFailed extends ApiError {
  readonly issues: ValidationIssue[];

  constructor(issues: ValidationIssue[]) {
    const capped = issues.slice(0, MAX_ISSUES);
    super(400, capped);
    this.issues = capped;
  }
}

/**
 * A 400 for input refused before anything ran: a request body the validation pipe refused. An
 * idempotent tool call answered so is not kept (the tool never ran; a corrected retry must run).
 */
export class InputRefused extends ValidationFailed {}

/**
 * Not an error: the kept answer of an idempotent call, replayed. Checking its Idempotency-Key
 * ends the checks with it, as a refusal would, so that neither the quota nor the tool is reached; the
 * exception filter writes its status and body as they were, with `Idempotent-Replayed: true`.
 */
export class IdempotentReplay extends HttpException {
  constructor(
    status: number,
    readonly body: unknown,
    /** Headers the replay carries besides its own (a 202's `Location`). */
    readonly headers: Record<string, string | number> = {},
  ) {
    super(body as Record<string, unknown>, status);
  }
}
