import { labelProblem } from '../kernel/common/text';
import type { KeyChanges } from './key.store';
import { characters } from '../kernel/validation/compiled.validator';
import { Issue, notALabel, tooLong, tooShort } from '../kernel/validation/issues';
import { EXTERNAL_ID_MAX_LENGTH, KEY_NAME_MAX_LENGTH } from './api-keys.dto';
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
  external_id?: string | null;
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

/** What is wrong with a label as the DTOs see it (1 to `max` characters, a label), if anything. */
function labelIssue(text: string, max: number): Issue | undefined {
  const length = characters(text);
  if (length < 1) return tooShort(1);
  if (length > max) return tooLong(max);
  return labelProblem(text) === undefined ? undefined : notALabel(text);
}

/** Refuses a label the DTOs would refuse, naming the field (and the reason without pydantic's prefix). */
function checkLabel(field: string, text: string, max: number): void {
  const issue = labelIssue(text, max);
  if (!issue) return;
  const reason = issue.msg.replace(/^Value error, /, '');
  throw new KeyRequestError(`Invalid ${field}: ${reason}`, [], [{ loc: [field], msg: issue.msg }]);
}

/**
 * Checks a key's name as the DTOs do, for the callers that reach the service without them: the
 * CLI refuses what the API refuses (and prints the reason without pydantic's prefix).
 */
export function checkKeyName(name: string): void {
  checkLabel('name', name, KEY_NAME_MAX_LENGTH);
}

/** Checks an external id as the DTOs do (the rule of a key's name), for the CLI as checkKeyName. */
export function checkExternalId(externalId: string): void {
  checkLabel('external_id', externalId, EXTERNAL_ID_MAX_LENGTH);
}

/**
 * Whether a value, a token's claim say, is an external id the API would take: text of 1 to 200
 * characters that is a label.
 */
export function isExternalId(value: unknown): value is string {
  return typeof value === 'string' && labelIssue(value, EXTERNAL_ID_MAX_LENGTH) === undefined;
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
