import type { ValidationIssue } from '../errors/validation-issue';
import { ValidationFailed } from '../errors/api-error';

/** An integer query parameter: its bounds, and its value when absent (undefined: none). */
export interface QueryInt {
  min: number;
  max: number;
  default?: number;
}

/**
 * Reads integer query parameters as pydantic would: a decimal string is parsed, anything else is
 * `int_parsing`, out of bounds `greater_than_equal` / `less_than_equal`, each at
 * `loc: ["query", name]`; every problem is listed at once. Unknown parameters are ignored.
 */
export function queryInts<K extends string>(
  query: Record<string, unknown>,
  specs: Record<K, QueryInt>,
): Record<K, number | undefined> {
  const values = {} as Record<K, number | undefined>;
  const issues: ValidationIssue[] = [];
  for (const name of Object.keys(specs) as K[]) {
    const spec = specs[name];
    const raw = query[name];
    if (raw === undefined) {
      values[name] = spec.default;
      continue;
    }
    const loc = ['query', name];
    if (typeof raw !== 'string' || !/^\s*[+-]?\d+\s*$/.test(raw)) {
      issues.push({
        loc,
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        type: 'int_parsing',
      });
      continue;
    }
    const value = Number(raw);
    if (value < spec.min) {
      issues.push({
        loc,
        msg: `Input should be greater than or equal to ${spec.min}`,
        type: 'greater_than_equal',
      });
    } else if (value > spec.max) {
      issues.push({
        loc,
        msg: `Input should be less than or equal to ${spec.max}`,
        type: 'less_than_equal',
      });
    } else values[name] = value;
  }
  if (issues.length) throw new ValidationFailed(issues);
  return values;
}

/** A query parameter whose value the service did not issue (a forged or damaged cursor). */
export function invalidQueryValue(name: string, msg: string): ValidationFailed {
  return new ValidationFailed([
    { loc: ['query', name], msg: `Value error, ${msg}`, type: 'value_error' },
  ]);
}

/** A query parameter that must be one of `allowed`, else a 400 naming them. */
export function queryChoice<T extends string>(
  query: Record<string, unknown>,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) {
    throw invalidQueryValue(name, `expected one of: ${allowed.join(', ')}`);
  }
  return value as T;
}
