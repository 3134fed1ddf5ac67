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

/** One entry of a 400 validation `detail` list, named as pydantic names them. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class ValidationFailed extends ApiError {
  constructor(readonly issues: ValidationIssue[]) {
    super(400, issues);
  }
}
