/**
 * The differential safety net of body validation: request DTOs, hand-picked bodies and generated
 * ones (fast-check, fixed seed), and what a validation pipe answers for each. The answers of the
 * class-validator pipe as it was before validation was compiled are kept in
 * validation-answers.json (recorded by record-validation-answers.ts); src/validation's
 * differential spec checks the compiled validator against them and against the class-validator
 * path, which stays for DTOs written with raw class-validator decorators.
 */
import type { PipeTransform, Type } from '@nestjs/common';
import fc from 'fast-check';
import {
  CreateApiKeyInput,
  RotateApiKeyInput,
  UpdateApiKeyInput,
} from '../../src/subjects/api-keys.dto';
import type { ValidationIssue } from '../../src/kernel/errors/validation-issue';
import { ValidationFailed } from '../../src/kernel/errors/api-error';
import { ConfigGetInput, ConfigSetInput, ConfigShowInput } from '../../src/tools/config/config.dto';
import { DoctorInput } from '../../src/tools/doctor/doctor.dto';
import { GreetInput } from '../../src/tools/greet/greet.dto';
import { ApiValidationPipe } from '../../src/kernel/validation/validation.pipe';
import { WordCountInput } from './sample-tool.module';

/** The pipe as it was before validation was compiled: every DTO through class-validator. */
export class ClassValidatorPipe extends ApiValidationPipe {
  protected override compiledValidator(): null {
    return null;
  }
}

export const DTOS: Record<string, Type> = {
  GreetInput,
  CreateApiKeyInput,
  UpdateApiKeyInput,
  RotateApiKeyInput,
  ConfigShowInput,
  ConfigGetInput,
  ConfigSetInput,
  DoctorInput,
  WordCountInput,
};

/** What a pipe answered: the handler's input (as JSON, with its class) or the 400 entries. */
export type Answer =
  { ok: { class: string; value: unknown } } | { issues: ValidationIssue[] } | { error: string };

export interface Case {
  dto: string;
  /** `undefined` (no body) is written as the absence of this field. */
  body?: unknown;
}

export interface RecordedCase extends Case {
  answer: Answer;
}

export async function answerOf(pipe: PipeTransform, dto: Type, body: unknown): Promise<Answer> {
  try {
    const value = (await pipe.transform(body, { type: 'body', metatype: dto })) as object;
    return {
      ok: { class: value.constructor.name, value: JSON.parse(JSON.stringify(value)) as unknown },
    };
  } catch (error) {
    if (error instanceof ValidationFailed) return { issues: error.issues };
    return { error: String(error) };
  }
}

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];
const EXTRAS = ['extra', 'zz', 'Name', 'toString', 'hasOwnProperty', '', ' name', ...PROTO_KEYS];

const LENGTHS = [1, 2, 49, 50, 51, 99, 100, 101, 199, 200, 201];
const BOUNDS = [
  0, 1, 2, 3, 99, 100, 101, 3650, 3651, 604_800, 604_801, 1_000_000, 1_000_001, 1_000_000_000,
  1_000_000_001,
];

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('', ' ', 'true', 'false', '3', '1.5', 'null', '\u0000', '\ud800', '😀', 'é'),
  fc.constantFrom('admin', 'standard', 'read_only', 'services:read', 'logging.level', 'Alice'),
  fc.constantFrom(...LENGTHS).map((n) => 'x'.repeat(n)),
);
const integer = fc.oneof(
  fc.constantFrom(...BOUNDS),
  fc.constantFrom(...BOUNDS).map((n) => -n),
  fc.constantFrom(-0, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e21, 1e300, -1e300),
  fc.integer(),
);
const float = fc.oneof(
  fc.constantFrom(0.5, 1.5, -1.5, 99.9, 100.5, 1e-7, 2.000001),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const scalar = fc.oneof(text, integer, float, fc.boolean(), fc.constant(null));
const list = fc.oneof(
  fc.array(text, { maxLength: 4 }),
  fc.array(scalar, { maxLength: 4 }),
  fc.constantFrom(19, 20, 21, 25).map((n) => Array<string>(n).fill('services:read')),
  fc.constantFrom(20, 21).map((n) => Array<unknown>(n).fill(1)),
  fc.constant([]),
);
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 2, arbitrary: list },
  { weight: 1, arbitrary: fc.constantFrom({}, { a: 1 }, { name: 'x' }, [[]], [{}]) },
);

const short = (min: number, max: number) => fc.string({ minLength: min, maxLength: max });
const between = (min: number, max: number) =>
  fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
const nullable = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });
const SCOPES = ['services:read', 'services:execute', 'admin:read', 'admin:*', '*'];

/** A value each declared field takes; the generator mixes them with anything else. */
const VALID: Record<string, fc.Arbitrary<unknown>> = {
  name: short(1, 30),
  shout: fc.boolean(),
  times: between(1, 100),
  scopes: fc.array(fc.constantFrom(...SCOPES), { maxLength: 20 }),
  scope_template: fc.constantFrom('read_only', 'standard', 'admin'),
  plan: fc.constantFrom('free', 'pro', 'unlimited'),
  daily_limit: nullable(between(0, 1_000_000_000)),
  rate_limit: nullable(between(1, 1_000_000)),
  expires_in_days: nullable(between(1, 3650)),
  enabled: fc.boolean(),
  grace_seconds: between(0, 604_800),
  key: fc.constantFrom('logging.level', 'server', 'x'),
  value: short(0, 12),
  fix: fc.boolean(),
  text: short(1, 30),
  distinct: fc.boolean(),
};

/** The fields each DTO declares, in declaration order. */
export const FIELDS: Record<string, string[]> = {
  GreetInput: ['name', 'shout', 'times'],
  CreateApiKeyInput: [
    'name',
    'scopes',
    'scope_template',
    'plan',
    'daily_limit',
    'rate_limit',
    'expires_in_days',
  ],
  UpdateApiKeyInput: ['name', 'scopes', 'plan', 'daily_limit', 'rate_limit', 'enabled'],
  RotateApiKeyInput: ['grace_seconds'],
  ConfigShowInput: [],
  ConfigGetInput: ['key'],
  ConfigSetInput: ['key', 'value'],
  DoctorInput: ['fix'],
  WordCountInput: ['text', 'distinct'],
};

type Entry = [string, unknown] | null;

/** A declared field: mostly a value it takes, sometimes anything, sometimes left out. */
function field(name: string): fc.Arbitrary<Entry> {
  return fc.oneof(
    { weight: 10, arbitrary: VALID[name].map((v): Entry => [name, v]) },
    { weight: 3, arbitrary: anyValue.map((v): Entry => [name, v]) },
    { weight: 2, arbitrary: fc.constant(null) },
  );
}

const extra: fc.Arbitrary<[string, unknown]> = fc.tuple(
  fc.oneof(fc.constantFrom(...EXTRAS), fc.string({ maxLength: 6 })),
  anyValue,
);

/** More extras than MAX_ISSUES, with small values: the cut to 20 and the order of entries. */
const wideExtra: fc.Arbitrary<[string, unknown]> = fc.tuple(
  fc.oneof(fc.constantFrom(...EXTRAS), fc.string({ maxLength: 4 })),
  fc.oneof(fc.integer({ min: -9, max: 9 }), fc.boolean(), fc.constant(null)),
);

/** Bodies for one DTO: near-valid objects, wide ones, and a few that are no object at all. */
function bodyFor(dto: string): fc.Arbitrary<unknown> {
  const near = fc
    .tuple(
      fc.tuple(...FIELDS[dto].map(field)),
      fc.oneof(
        { weight: 12, arbitrary: fc.constant<[string, unknown][]>([]) },
        { weight: 6, arbitrary: fc.array(extra, { maxLength: 3 }) },
        { weight: 1, arbitrary: fc.array(wideExtra, { minLength: 18, maxLength: 26 }) },
      ),
      fc.boolean(),
    )
    .map(([declared, extras, extrasFirst]) => {
      const own = declared.filter((e): e is [string, unknown] => e !== null);
      // Built like JSON.parse builds: own keys only, `__proto__` included.
      return Object.fromEntries(extrasFirst ? [...extras, ...own] : [...own, ...extras]);
    });
  return fc.oneof(
    { weight: 20, arbitrary: near },
    { weight: 1, arbitrary: fc.constantFrom(undefined, null, [], [1], 'x', 3, true) },
  );
}

/** Generated bodies for every DTO: the same sequence on every run (fixed seed). */
export function generatedCases(perDto: number, seed = 20_261_122): Case[] {
  return Object.keys(DTOS).flatMap((dto, i) =>
    fc.sample(bodyFor(dto), { seed: seed + i, numRuns: perDto }).map((body) => ({ dto, body })),
  );
}

/** Generated (DTO, body) pairs for a property run. */
export const anyCase: fc.Arbitrary<Case> = fc
  .constantFrom(...Object.keys(DTOS))
  .chain((dto) => bodyFor(dto).map((body) => ({ dto, body })));

/** The edge cases named in issue 14, each on the DTOs it concerns. */
export function handPickedCases(): Case[] {
  const cases: Case[] = [];
  const add = (dto: string, ...bodies: unknown[]) =>
    bodies.forEach((b) => cases.push(b === undefined ? { dto } : { dto, body: b }));
  const proto = (json: string) => JSON.parse(json) as unknown;
  add(
    'GreetInput',
    undefined,
    null,
    [],
    'Alice',
    {},
    { name: 'Alice' },
    { name: 'Alice', shout: true, times: 100 },
    { name: '' },
    { name: 'x'.repeat(200) },
    { name: 'x'.repeat(201) },
    { name: '😀'.repeat(200) },
    { name: '😀'.repeat(201) },
    { name: 'é\u0301ñ\u0000\ud800' },
    // Lengths as class-validator counts them: a character and its variation selector are one.
    { name: 'a\ufe0f'.repeat(200) },
    { name: '❤️'.repeat(201) },
    { name: '\ufe0f'.repeat(201) },
    { name: '😀\ufe0f'.repeat(200) },
    { name: null, shout: null, times: null },
    { name: 1, shout: 'true', times: '3' },
    { name: 'a', times: 3.0 },
    { name: 'a', times: 3.5 },
    { name: 'a', times: 1e300 },
    { name: 'a', times: -0 },
    { name: 'a', times: 0 },
    { name: 'a', times: 101 },
    { name: 'a', times: 2 ** 53 + 2 },
    { name: ['a'], shout: 1, times: [1] },
    { name: { a: 1 }, shout: {}, times: {} },
    { times: 0, shout: 'yes', x: 1 },
    { zz: 1, name: 'x'.repeat(201), yy: 2 },
    proto('{"__proto__":{"polluted":1},"name":"a"}'),
    proto('{"constructor":{"prototype":{"polluted":1}},"name":"a"}'),
    proto('{"prototype":1,"__proto__":null}'),
    Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i])),
    { ...Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, i])), times: 0 },
  );
  add(
    'CreateApiKeyInput',
    {},
    { name: 'x' },
    { name: 'x', scopes: ['services:read'], daily_limit: null, rate_limit: null },
    { name: 'x', scopes: [1, 'a', null] },
    { name: 'x', scopes: Array(20).fill('services:read') },
    { name: 'x', scopes: Array(21).fill('services:read') },
    { name: 'x', scopes: Array(25).fill('services:read') },
    { name: 'x', scopes: Array(21).fill(1) },
    { name: 'x', scopes: 'services:read' },
    { name: 'x', scopes: null },
    { name: 'x', scopes: {} },
    { name: 'x', scopes: [[]] },
    { name: 'x', scope_template: 'god' },
    { name: 'x', scope_template: '' },
    { name: 'x', scope_template: null },
    { name: 'x', scope_template: 5 },
    { name: 'x', plan: '' },
    { name: 'x', plan: 'x'.repeat(51) },
    { name: 'x', daily_limit: -1, rate_limit: 0, expires_in_days: 0 },
    { name: 'x', daily_limit: 1e9 + 1, rate_limit: 1e6 + 1, expires_in_days: 3651 },
    { name: 'x', rate_limit: '5', daily_limit: 1.5, expires_in_days: true },
    { name: 'x'.repeat(101), owner: 'me' },
    // Names are labels: 1 to 200 characters, no control or bidi characters, no lone surrogates.
    { name: 'x'.repeat(200) },
    { name: 'x'.repeat(201) },
    { name: '\u001b'.repeat(201) },
    { name: '\u001b[2J\u001b]0;pwned\u0007' },
    { name: 'row\r\nkey_forged\tactive' },
    { name: 'a\u0000b' },
    { name: 'price \u202e01$' },
    { name: '\u2066isolated\u2069' },
    { name: 'x\u0085' },
    { name: 'x\ud800' },
    { name: '\udfffx' },
    { name: '😀 ❤️ é\u0301 \u200f' },
    { name: '\u001b', scopes: 'services:read' },
  );
  add(
    'UpdateApiKeyInput',
    {},
    { enabled: false },
    { enabled: 'false' },
    { enabled: null },
    { name: null, scopes: null, plan: null, daily_limit: null, rate_limit: null },
    { name: '' },
    { name: 'x'.repeat(200) },
    { name: 'x'.repeat(201) },
    { name: 'a\nb' },
    { name: '\u202dleft' },
    { name: '\ud83d' },
    { name: '😀' },
  );
  add(
    'RotateApiKeyInput',
    undefined,
    {},
    { grace_seconds: 0 },
    { grace_seconds: 3600 },
    { grace_seconds: -1 },
    { grace_seconds: 604_801 },
    { grace_seconds: '60' },
    { grace_seconds: null },
  );
  add('ConfigShowInput', undefined, {}, { a: 1 }, null, proto('{"__proto__":{}}'));
  add(
    'ConfigGetInput',
    {},
    { key: 'logging.level' },
    { key: '' },
    { key: 'x'.repeat(300) },
    { key: 1 },
  );
  add('ConfigSetInput', {}, { key: 'a', value: 'b' }, { key: 'a', value: 1 }, { value: '' });
  add('DoctorInput', undefined, {}, { fix: true }, { fix: 'true' }, { fix: null }, { fix: 0 });
  add('WordCountInput', { text: 'a b' }, { text: '', distinct: 'yes', extra: 1 });
  return cases;
}
