import { labelProblem } from '../kernel/common/text';
import type { KeyChanges } from './key.store';
import { characters } from '../kernel/validation/compiled.validator';
import { Issue, notALabel, tooLong, tooShort } from '../kernel/validation/issues';
import { KEY_NAME_MAX_LENGTH } from './api-keys.dto';
import { ValidationFailed } from '../kernel/errors/api-error';

export interface NewKeyRequest {
  name: string;
  scopes?: string[];
  scope_template?: string;
  plan?: string;
  daily_limit?: number | null;
  monthly_limit?: number | null;
  rate_limit?: number | null;
  expires_in_days?: number | null;
}

/** One refused field of a key request; `loc` is relative to the request (`['scopes', 0]`). */
export interface KeyRequestIssue {
  loc: (string | number)[];
  msg: string;
}

/** A key request the service refuses: the HTTP API answers it 400, the CLI prints it. */
export class KeyRequestError extends Error {
  readonly issues: KeyRequestIssue[];

  constructor(message: string, loc: (string | number)[] = [], issues?: KeyRequestIssue[]) {
    super(message);
    this.issues = issues ?? [{ loc, msg: message }];
  }
}

/** What is wrong with a key's name as the DTOs see it (1 to 200 characters, a label), if anything. */
function nameIssue(name: string): Issue | undefined {
  const length = characters(name);
  if (length < 1) return tooShort(1);
  if (length > KEY_NAME_MAX_LENGTH) return tooLong(KEY_NAME_MAX_LENGTH);
  return labelProblem(name) === undefined ? undefined : notALabel(name);
}

/**
 * Checks a key's name as the DTOs do, for the callers that reach the service without them: the
 * CLI refuses what the API refuses (and prints the reason without pydantic's prefix).
 */
export function checkKeyName(name: string): void {
  const issue = nameIssue(name);
  if (!issue) return;
  const reason = issue.msg.replace(/^Value error, /, '');
  throw new KeyRequestError(`Invalid name: ${reason}`, [], [{ loc: ['name'], msg: issue.msg }]);
}

/** A PATCH of a key: the fields to change; a null limit falls back to the plan. */
export type KeyUpdate = KeyChanges;

export const KEY_NOT_FOUND = 'API key not found';

export const KEY_REVOKED = 'API key is revoked';

/** A refused key request as the 400 list of the error contract; any other error unchanged. */
export function badRequest(error: unknown): unknown {
  if (!(error instanceof KeyRequestError)) return error;
  return new ValidationFailed(
    error.issues.map(({ loc, msg }) => ({ loc: ['body', ...loc], msg, type: 'value_error' })),
  );
}
