import type { z } from 'zod';
import type { ValidationIssue } from '../errors/validation-issue';
import {
  atLeast,
  atMost,
  echoedName,
  EXTRA_FORBIDDEN,
  Issue,
  MISSING,
  tooLong,
  tooShort,
  TYPE_ISSUES,
} from './issues';

/** zod's codes as the nearest pydantic types, the names every other 400 of a body uses. */
const TYPES: Record<string, string> = {
  too_small: 'too_short',
  too_big: 'too_long',
  invalid_format: 'string_pattern_mismatch',
  invalid_value: 'literal_error',
  invalid_union: 'union_tag_invalid',
  not_multiple_of: 'multiple_of',
};

/** A bound passed, in pydantic's words where it has them (numbers, strings). */
function boundIssue(issue: z.core.$ZodIssue): Issue | undefined {
  if (issue.code !== 'too_small' && issue.code !== 'too_big') return undefined;
  const small = issue.code === 'too_small';
  const bound = Number(small ? issue.minimum : issue.maximum);
  if (issue.origin === 'number') return small ? atLeast(bound) : atMost(bound);
  if (issue.origin === 'string') return small ? tooShort(bound) : tooLong(bound);
  return undefined;
}

/**
 * A zod error of a request body (a schema shared with a file's settings, say) as the entries of
 * a 400 `{detail: [{loc, msg, type}]}`, `loc` starting with `body`: an unknown field is
 * `extra_forbidden`, a field left out `missing`, a value of another JSON type its `<type>_type`.
 */
export function zodIssues(error: z.ZodError, input: unknown): ValidationIssue[] {
  return error.issues.flatMap((issue): ValidationIssue[] => {
    const loc = [
      'body',
      ...issue.path.map((part) => (typeof part === 'number' ? part : echoedName(String(part)))),
    ];
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ loc: [...loc, echoedName(key)], ...EXTRA_FORBIDDEN }));
    }
    if (valueAt(input, issue.path) === undefined) {
      return [{ loc, ...MISSING }];
    }
    if (issue.code === 'invalid_type') {
      const known = TYPE_ISSUES[issue.expected === 'int' ? 'integer' : issue.expected];
      if (known) return [{ loc, ...known }];
    }
    const bound = boundIssue(issue);
    if (bound) return [{ loc, ...bound }];
    return [{ loc, msg: issue.message, type: TYPES[issue.code] ?? 'value_error' }];
  });
}

/** The value at `path` in `input`, undefined where there is none. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}
