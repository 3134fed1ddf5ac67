import { labelProblem } from '../common/text';
import type { ValidationIssue } from '../errors/validation-issue';

/**
 * pydantic's names and words for what is wrong with a field, in one place: the field decorators
 * give them to class-validator (fields.ts) and the compiled validator reports them for the JSON
 * Schema keyword that failed (compiled.validator.ts), so both paths answer alike.
 */
export interface IssueContext {
  type: string;
  /** Absent: the constraint's own message (one that depends on the value). */
  msg?: string;
}

/** An entry without its `loc`; written `msg` first, as entries are: `{loc, msg, type}`. */
export type Issue = Required<IssueContext>;

/** A value that is not of the JSON type the schema names, by that type. */
export const TYPE_ISSUES: Record<string, Issue> = {
  string: { msg: 'Input should be a valid string', type: 'string_type' },
  integer: { msg: 'Input should be a valid integer', type: 'int_type' },
  number: { msg: 'Input should be a valid number', type: 'float_type' },
  boolean: { msg: 'Input should be a valid boolean', type: 'bool_type' },
  array: { msg: 'Input should be a valid list', type: 'list_type' },
  object: { msg: 'Input should be a valid dictionary', type: 'dict_type' },
};

/** Type errors win over every other problem of a field, as in pydantic: one entry per field. */
export const TYPE_ERRORS = new Set(Object.values(TYPE_ISSUES).map((issue) => issue.type));

export const MISSING: Issue = { msg: 'Field required', type: 'missing' };

export const EXTRA_FORBIDDEN: Issue = {
  msg: 'Extra inputs are not permitted',
  type: 'extra_forbidden',
};

/** A client's name (an unknown field's, a tool's) is echoed in an answer up to this many characters. */
export const MAX_ECHOED_NAME = 100;

/**
 * A name as an answer echoes it: cut to MAX_ECHOED_NAME characters (never inside a surrogate pair),
 * so that what a client makes the service write, and keep for an Idempotency-Key, stays small.
 */
export function echoedName(name: string): string {
  if (name.length <= MAX_ECHOED_NAME) return name;
  const cut = name.slice(0, MAX_ECHOED_NAME);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

export const BODY_NOT_OBJECT: ValidationIssue = { loc: ['body'], ...TYPE_ISSUES.object };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export const tooShort = (min: number): Issue => ({
  msg: `String should have at least ${plural(min, 'character')}`,
  type: 'string_too_short',
});

export const tooLong = (max: number): Issue => ({
  msg: `String should have at most ${plural(max, 'character')}`,
  type: 'string_too_long',
});

export const atLeast = (min: number): Issue => ({
  msg: `Input should be greater than or equal to ${min}`,
  type: 'greater_than_equal',
});

export const atMost = (max: number): Issue => ({
  msg: `Input should be less than or equal to ${max}`,
  type: 'less_than_equal',
});

/** Text that may not be a label (see src/kernel/common/text.ts); the message names the character at fault. */
export const notALabel = (text: string): Issue => ({
  msg: `Value error, ${labelProblem(text) ?? 'not a label'}`,
  type: 'value_error',
});

/** Not one of the allowed values (a nullable field's `null` is not named). */
export const notOneOf = (values: readonly unknown[]): Issue => ({
  msg: `Input should be ${values
    .filter((v) => v !== null)
    .map((v) => `'${v as string}'`)
    .join(', ')}`,
  type: 'literal_error',
});

/** pydantic's words, with the length it saw. */
export const tooManyItems = (max: number, length: number): Issue => ({
  msg: `List should have at most ${plural(max, 'item')} after validation, not ${length}`,
  type: 'too_long',
});
