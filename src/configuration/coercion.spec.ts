import { checkValue, Coerced, coerce, parseRaw, parseTyped } from './coercion';
import { ConfigKey, ConfigKeySpec } from './configuration.types';

describe('coerce: the contract rules, in their order', () => {
  it.each<[string, Coerced]>([
    // true/yes -> true, false/no -> false, in any case, before anything else
    ['true', { type: 'boolean', value: true }],
    ['Yes', { type: 'boolean', value: true }],
    ['no', { type: 'boolean', value: false }],
    ['FALSE', { type: 'boolean', value: false }],
    [' yes ', { type: 'boolean', value: true }],
    ['TrUe', { type: 'boolean', value: true }],
    // integer literals within ±2^53; `1` and `0` are integers, not booleans
    ['1', { type: 'integer', value: 1 }],
    ['0', { type: 'integer', value: 0 }],
    ['-12', { type: 'integer', value: -12 }],
    ['+7', { type: 'integer', value: 7 }],
    [' 42 ', { type: 'integer', value: 42 }],
    ['007', { type: 'integer', value: 7 }],
    ['-0', { type: 'integer', value: 0 }],
    ['9007199254740992', { type: 'integer', value: 2 ** 53 }],
    ['-9007199254740992', { type: 'integer', value: -(2 ** 53) }],
    // finite decimal or exponent literals
    ['1.5', { type: 'float', value: 1.5 }],
    ['1e3', { type: 'float', value: 1000 }],
    ['.5', { type: 'float', value: 0.5 }],
    ['-2.5E-3', { type: 'float', value: -0.0025 }],
    ['+1.', { type: 'float', value: 1 }],
    // everything else: the string unchanged
    ['inf', { type: 'string', value: 'inf' }],
    ['nan', { type: 'string', value: 'nan' }],
    ['Infinity', { type: 'string', value: 'Infinity' }],
    ['1e400', { type: 'string', value: '1e400' }],
    ['9007199254740993', { type: 'string', value: '9007199254740993' }],
    ['-9007199254740993', { type: 'string', value: '-9007199254740993' }],
    ['hello', { type: 'string', value: 'hello' }],
    ['', { type: 'string', value: '' }],
    ['  ', { type: 'string', value: '  ' }],
    [' hello ', { type: 'string', value: ' hello ' }],
    ['0x10', { type: 'string', value: '0x10' }],
    ['1_000', { type: 'string', value: '1_000' }],
    ['1e', { type: 'string', value: '1e' }],
    ['.', { type: 'string', value: '.' }],
    ['y', { type: 'string', value: 'y' }],
    ['on', { type: 'string', value: 'on' }],
  ])('%j -> %j', (raw, expected) => {
    expect(coerce(raw)).toEqual(expected);
  });

  it('never yields negative zero', () => {
    expect(Object.is(coerce('-0').value, 0)).toBe(true);
    expect(Object.is(coerce('-0.0').value, 0)).toBe(true);
  });
});

const port = ConfigKey.integer({ default: 8000, min: 1, max: 65535, description: 'port' });
const ratio = ConfigKey.float({ default: 0.5, min: 0, max: 1, description: 'ratio' });
const flag = ConfigKey.boolean({ default: true, description: 'flag' });
const level = ConfigKey.string({
  default: 'info',
  choices: ['debug', 'info'],
  caseInsensitive: true,
  description: 'level',
});
const name = ConfigKey.string({ default: 'x', minLength: 1, maxLength: 5, description: 'name' });
const secret = ConfigKey.string({ default: '', maxLength: 3, secret: true, description: 'secret' });

describe('parseRaw: coercion, then the key type and constraints', () => {
  it.each<[string, ConfigKeySpec, string, unknown]>([
    ['k.port', port, '8080', 8080],
    ['k.port', port, ' 007 ', 7],
    ['k.port', port, '+1', 1],
    ['k.ratio', ratio, '1', 1], // an integer is accepted for a float key
    ['k.ratio', ratio, '.25', 0.25],
    ['k.flag', flag, 'NO', false],
    ['k.flag', flag, 'Yes', true],
    ['k.level', level, 'DEBUG', 'debug'], // any case, stored lower case
    ['k.level', level, ' info ', 'info'],
    ['k.name', name, '007', '007'], // a string key keeps the original string
    ['k.name', name, 'true', 'true'],
    ['k.name', name, ' a ', ' a '],
  ])('%s = %j -> accepted as %j', (key, spec, raw, value) => {
    expect(parseRaw(key, spec, raw)).toEqual({ ok: true, value });
  });

  it.each<[string, ConfigKeySpec, string, string, string]>([
    [
      'k.port',
      port,
      '70000',
      'less_than_equal',
      "k.port expects an integer from 1 to 65535; got '70000'",
    ],
    [
      'k.port',
      port,
      '0',
      'greater_than_equal',
      "k.port expects an integer from 1 to 65535; got '0'",
    ],
    ['k.port', port, 'abc', 'int_type', "k.port expects an integer from 1 to 65535; got 'abc'"],
    ['k.port', port, '80.5', 'int_type', "k.port expects an integer from 1 to 65535; got '80.5'"],
    ['k.port', port, '1e3', 'int_type', "k.port expects an integer from 1 to 65535; got '1e3'"],
    ['k.port', port, 'true', 'int_type', "k.port expects an integer from 1 to 65535; got 'true'"],
    [
      'k.port',
      port,
      '9007199254740993',
      'int_type',
      "k.port expects an integer from 1 to 65535; got '9007199254740993'",
    ],
    ['k.ratio', ratio, '1.5', 'less_than_equal', "k.ratio expects a number from 0 to 1; got '1.5'"],
    ['k.ratio', ratio, 'nan', 'float_type', "k.ratio expects a number from 0 to 1; got 'nan'"],
    [
      'k.flag',
      flag,
      'maybe',
      'bool_type',
      "k.flag expects a boolean (true, false, yes or no, in any case); got 'maybe'",
    ],
    [
      'k.flag',
      flag,
      '1',
      'bool_type',
      "k.flag expects a boolean (true, false, yes or no, in any case); got '1'",
    ],
    [
      'k.level',
      level,
      'loud',
      'literal_error',
      "k.level expects one of debug, info (any case); got 'loud'",
    ],
    [
      'k.name',
      name,
      '',
      'string_too_short',
      "k.name expects a string of 1 to 5 characters; got ''",
    ],
    [
      'k.name',
      name,
      'abcdef',
      'string_too_long',
      "k.name expects a string of 1 to 5 characters; got 'abcdef'",
    ],
    [
      'k.secret',
      secret,
      'hunter2',
      'string_too_long',
      'k.secret expects a string of at most 3 characters; got a value that does not fit',
    ],
  ])('%s = %j -> %s', (key, spec, raw, type, msg) => {
    expect(parseRaw(key, spec, raw)).toEqual({ ok: false, rejection: { type, msg } });
  });

  it('quotes at most 100 characters of a rejected value', () => {
    const result = parseRaw('k.port', port, 'x'.repeat(500));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.rejection.msg).toMatch(/got 'x{100}\.\.\.'$/);
  });
});

describe('parseTyped: YAML scalars and stored overrides', () => {
  it.each<[ConfigKeySpec, unknown, unknown]>([
    [port, 8080, 8080],
    [port, '8080', 8080], // a string goes through the same coercion as config_set
    [ratio, 1, 1],
    [ratio, 0.75, 0.75],
    [flag, false, false],
    [flag, 'yes', true],
    [name, 123, '123'], // a string key takes any scalar as its text
    [level, 'INFO', 'info'],
  ])('%#: %j accepted as %j', (spec, value, expected) => {
    expect(parseTyped('k.x', spec, value)).toEqual({ ok: true, value: expected });
  });

  it.each<[ConfigKeySpec, unknown, string]>([
    [port, 80.5, 'int_type'],
    [port, null, 'int_type'],
    [port, [1], 'int_type'],
    [port, 70000, 'less_than_equal'],
    [flag, 1, 'bool_type'],
    [name, null, 'string_type'],
    [name, { a: 1 }, 'string_type'],
    [ratio, 'abc', 'float_type'],
  ])('%#: %j rejected as %s', (spec, value, type) => {
    const result = parseTyped('k.x', spec, value);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.rejection.type).toBe(type);
  });
});

describe('checkValue', () => {
  it('rejects a float for an integer key even when it is whole', () => {
    expect(checkValue('k.port', port, { type: 'float', value: 1000 }, '1e3').ok).toBe(false);
  });
});
