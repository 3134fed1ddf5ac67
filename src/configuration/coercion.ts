import type { ConfigKeySpec, ConfigScalar, StringKey } from './configuration.types';

/** What a raw string coerces to, before the key's own type is looked at. */
export type Coerced =
  | { type: 'boolean'; value: boolean }
  | { type: 'integer'; value: number }
  | { type: 'float'; value: number }
  | { type: 'string'; value: string };

const TRUE_WORDS = new Set(['true', 'yes']);
const FALSE_WORDS = new Set(['false', 'no']);
const INTEGER_LITERAL = /^[+-]?\d+$/;
const DECIMAL_LITERAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
/** ±2^53: beyond it a double cannot tell neighbouring integers apart. */
const INTEGER_LIMIT = 2n ** 53n;

/**
 * The contract's coercion, in its order, on the trimmed string: `true`/`yes` and `false`/`no` in any
 * case; an integer literal within ±2^53; a finite decimal or exponent literal; otherwise the string
 * unchanged (`inf`, `nan`, `""`, integers too large to hold exactly).
 */
export function coerce(raw: string): Coerced {
  const text = raw.trim();
  const word = text.toLowerCase();
  if (TRUE_WORDS.has(word)) return { type: 'boolean', value: true };
  if (FALSE_WORDS.has(word)) return { type: 'boolean', value: false };
  if (INTEGER_LITERAL.test(text)) {
    const big = BigInt(text);
    if (big <= INTEGER_LIMIT && big >= -INTEGER_LIMIT) {
      // `-0` is 0: JSON has no negative zero to report.
      return { type: 'integer', value: Number(big) };
    }
    return { type: 'string', value: raw };
  }
  if (DECIMAL_LITERAL.test(text)) {
    const value = Number(text);
    if (Number.isFinite(value)) return { type: 'float', value: value === 0 ? 0 : value };
  }
  return { type: 'string', value: raw };
}

/** A value already typed (a YAML scalar, a stored override), seen the way `coerce` would see it. */
export function classify(value: unknown): Coerced | undefined {
  if (typeof value === 'boolean') return { type: 'boolean', value };
  if (typeof value === 'string') return { type: 'string', value };
  if (typeof value === 'number' && Number.isFinite(value)) {
    return Number.isInteger(value) && Math.abs(value) <= 2 ** 53
      ? { type: 'integer', value }
      : { type: 'float', value };
  }
  return undefined;
}

/** The pydantic error type of a value of the wrong type, by the key's type. */
const TYPE_ERROR: Record<ConfigKeySpec['type'], string> = {
  boolean: 'bool_type',
  integer: 'int_type',
  float: 'float_type',
  string: 'string_type',
};

/** A rejected value: a pydantic error type and a sentence naming the key and what it expects. */
export interface Rejection {
  type: string;
  msg: string;
}

export type Checked = { ok: true; value: ConfigScalar } | { ok: false; rejection: Rejection };

const range = (min?: number, max?: number): string => {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` >= ${min}`;
  if (max !== undefined) return ` <= ${max}`;
  return '';
};

function stringExpectation(spec: StringKey): string {
  if (spec.choices) {
    return `one of ${spec.choices.join(', ')}${spec.caseInsensitive ? ' (any case)' : ''}`;
  }
  if (spec.check) return spec.check.expects;
  const { minLength, maxLength } = spec;
  if (minLength && maxLength) return `a string of ${minLength} to ${maxLength} characters`;
  if (maxLength) return `a string of at most ${maxLength} characters`;
  if (minLength) return `a string of at least ${minLength} characters`;
  return 'a string';
}

/** What a key takes, in words: "an integer from 1 to 65535". */
export function expectation(spec: ConfigKeySpec): string {
  switch (spec.type) {
    case 'boolean':
      return 'a boolean (true, false, yes or no, in any case)';
    case 'integer':
      return `an integer${range(spec.min, spec.max)}`;
    case 'float':
      return `a number${range(spec.min, spec.max)}`;
    case 'string':
      return stringExpectation(spec);
  }
}

/** How a rejected input is quoted back: never for a secret, never at length. */
function quote(spec: ConfigKeySpec, shown: string): string {
  if (spec.secret) return 'a value that does not fit';
  const text = shown.length > 100 ? `${shown.slice(0, 100)}...` : shown;
  return `'${text}'`;
}

function reject(key: string, spec: ConfigKeySpec, type: string, shown: string): Checked {
  return {
    ok: false,
    rejection: { type, msg: `${key} expects ${expectation(spec)}; got ${quote(spec, shown)}` },
  };
}

function checkBounds(
  key: string,
  spec: ConfigKeySpec & { min?: number; max?: number },
  value: number,
  shown: string,
): Checked {
  if (spec.min !== undefined && value < spec.min)
    return reject(key, spec, 'greater_than_equal', shown);
  if (spec.max !== undefined && value > spec.max)
    return reject(key, spec, 'less_than_equal', shown);
  return { ok: true, value };
}

function checkString(key: string, spec: StringKey, original: string): Checked {
  if (spec.choices) {
    const candidate = spec.caseInsensitive ? original.trim().toLowerCase() : original;
    return spec.choices.includes(candidate)
      ? { ok: true, value: candidate }
      : reject(key, spec, 'literal_error', original);
  }
  if (spec.minLength !== undefined && original.length < spec.minLength) {
    return reject(key, spec, 'string_too_short', original);
  }
  if (spec.maxLength !== undefined && original.length > spec.maxLength) {
    return reject(key, spec, 'string_too_long', original);
  }
  if (spec.check && !spec.check.test(original)) {
    return reject(key, spec, 'string_pattern_mismatch', original);
  }
  return { ok: true, value: original };
}

/**
 * Checks a coerced value against the key's type and constraints. `original` is the text the value
 * came from: a string-typed key keeps it as it was (`007` stays `007`); an integer is accepted for
 * a float key; anything else that does not match is rejected.
 */
export function checkValue(
  key: string,
  spec: ConfigKeySpec,
  coerced: Coerced,
  original: string,
): Checked {
  switch (spec.type) {
    case 'boolean':
      return coerced.type === 'boolean'
        ? { ok: true, value: coerced.value }
        : reject(key, spec, TYPE_ERROR.boolean, original);
    case 'integer':
      return coerced.type === 'integer'
        ? checkBounds(key, spec, coerced.value, original)
        : reject(key, spec, TYPE_ERROR.integer, original);
    case 'float':
      return coerced.type === 'integer' || coerced.type === 'float'
        ? checkBounds(key, spec, coerced.value, original)
        : reject(key, spec, TYPE_ERROR.float, original);
    case 'string':
      return checkString(key, spec, original);
  }
}

/** `config_set` and the environment: a raw string, coerced, then checked. */
export function parseRaw(key: string, spec: ConfigKeySpec, raw: string): Checked {
  return checkValue(key, spec, coerce(raw), raw);
}

/**
 * A typed value (YAML, a stored override). A string goes through the same coercion as `config_set`,
 * so `port: "8080"` in YAML means what `config_set` would make of it.
 */
export function parseTyped(key: string, spec: ConfigKeySpec, value: unknown): Checked {
  if (typeof value === 'string') return parseRaw(key, spec, value);
  const classified = classify(value);
  const shown = JSON.stringify(value) ?? String(value);
  if (!classified) return reject(key, spec, TYPE_ERROR[spec.type], shown);
  if (spec.type === 'string') return checkString(key, spec, String(classified.value));
  return checkValue(key, spec, classified, shown);
}
