import type { Type } from '@nestjs/common';
import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import { getMetadataStorage } from 'class-validator';
import type { ValidationIssue } from '../errors/validation-issue';
import { LABEL_PATTERN } from '../common/text';
import { isFieldConstraint } from './fields';
import {
  atLeast,
  atMost,
  Issue,
  MISSING,
  notALabel,
  notOneOf,
  tooLong,
  tooManyItems,
  tooShort,
  TYPE_ISSUES,
} from './issues';
import { JsonSchema, jsonSchemaOf } from './json-schema';

/**
 * The keywords a field's schema may hold, checked in this order, each reported as pydantic does:
 * the type first (a list's items too), then the constraints in the order the field decorators
 * state them. A field schema with any other validation keyword is not compiled.
 */
const CHECKED = [
  'minLength',
  'maxLength',
  'pattern',
  'enum',
  'minimum',
  'maximum',
  'maxItems',
] as const;
/** Keywords that describe and check nothing (left out of what ajv compiles). */
const ANNOTATIONS = new Set(['description', 'example', 'examples', 'title', 'default']);

/**
 * For hostile input: one ajv function per field that stops at its first failure (`allErrors`
 * off), so a field costs at most one pass over its value, even a list of 500,000 wrong items;
 * several entries come from several fields. No `$data`, no coercion, no defaults written by ajv
 * (the values it sees are the client's own), strict schemas (an unknown keyword fails the start).
 */
const ajv = new Ajv({
  allErrors: false,
  $data: false,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  strict: true,
  strictNumbers: true,
  allowUnionTypes: true,
  messages: false,
});

/**
 * A string's length as class-validator counts it (validator.js `isLength`), which the answers
 * keep: a surrogate pair is one character, and so is a character with its variation selector
 * (U+FE0E, U+FE0F), which JSON Schema's own `minLength` / `maxLength` count as two.
 */
export function characters(text: string): number {
  if (!/[\uFE0E\uFE0F\uD800-\uDFFF]/.test(text)) return text.length;
  const selectors = text.match(/[^\uFE0F\uFE0E][\uFE0F\uFE0E]/g)?.length ?? 0;
  const pairs = text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0;
  return text.length - selectors - pairs;
}

for (const [keyword, holds] of [
  ['minLength', (limit: number, text: string) => characters(text) >= limit],
  ['maxLength', (limit: number, text: string) => characters(text) <= limit],
] as const) {
  ajv.removeKeyword(keyword);
  ajv.addKeyword({ keyword, type: 'string', schemaType: 'number', errors: false, validate: holds });
}

/** One declared field: its schema compiled, whether it must be present, its default. */
interface Field {
  name: string;
  required: boolean;
  hasDefault: boolean;
  default: unknown;
  /** The field's JSON Schema property, as published. */
  schema: JsonSchema;
  check: ValidateFunction;
}

/**
 * A DTO made of field decorators only, validated by ajv functions compiled from its JSON Schema
 * (the one OpenAPI, discovery and MCP publish). The answers are class-validator's with the same
 * decorators, entry for entry (src/kernel/validation/validation.differential.spec.ts).
 */
export class CompiledValidator {
  /** The names of the declared fields. */
  readonly declared: ReadonlySet<string>;

  constructor(
    private readonly dto: Type,
    /** In declaration order: the order of the entries. */
    private readonly fields: readonly Field[],
  ) {
    this.declared = new Set(fields.map((field) => field.name));
  }

  /**
   * `known` holds only declared fields (unknown ones were found before, in one pass). Answers an
   * instance of the DTO class with the defaults filled in, or the entries of what is wrong.
   */
  validate(known: Record<string, unknown>): { value: object } | { issues: ValidationIssue[] } {
    const values: Record<string, unknown> = {};
    let issues: ValidationIssue[] | undefined;
    for (const field of this.fields) {
      const value = known[field.name];
      if (value === undefined) {
        if (field.required) (issues ??= []).push({ loc: ['body', field.name], ...MISSING });
        else if (field.hasDefault) values[field.name] = copyOf(field.default);
      } else if (field.check(value)) {
        values[field.name] = value;
      } else {
        const error = (field.check.errors as ErrorObject[])[0];
        (issues ??= []).push({
          loc: ['body', field.name],
          ...issueOf(error, value, field.schema),
        });
      }
    }
    if (issues) return { issues };
    // `new`, as class-transformer did: the handler gets an instance of its DTO.
    return { value: Object.assign(new (this.dto as new () => object)(), values) };
  }
}

/** A default as a new value each time: a handler may change its input. */
export function copyOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

/** The entry for the first keyword of its schema that a field's value failed (see CHECKED). */
function issueOf(error: ErrorObject, value: unknown, property: JsonSchema): Issue {
  const limit = property[error.keyword] as number;
  switch (error.keyword) {
    case 'type': {
      // A list's item of the wrong type is reported at the list, as class-validator did.
      const type = error.instancePath ? (property.items as JsonSchema).type : property.type;
      return TYPE_ISSUES[[type].flat()[0] as string];
    }
    case 'minLength':
      return tooShort(limit);
    case 'maxLength':
      return tooLong(limit);
    case 'minimum':
      return atLeast(limit);
    case 'maximum':
      return atMost(limit);
    case 'pattern':
      return notALabel(value as string);
    case 'enum':
      return notOneOf(property.enum as unknown[]);
    case 'maxItems':
      return tooManyItems(limit, (value as unknown[]).length);
    default:
      throw new Error(`No pydantic entry for the JSON Schema keyword '${error.keyword}'`);
  }
}

/**
 * A field's schema as ajv checks it: the same keywords, checked one after the other in CHECKED
 * order (`allOf` stops at its first failure) once the type is right, with a list's items first.
 * Undefined when it holds a keyword that issueOf cannot report (the DTO is then not compiled).
 */
function orderedSchema(property: JsonSchema): JsonSchema | undefined {
  const { type, items, ...rest } = property;
  const unknown = Object.keys(rest).filter(
    (keyword) => !ANNOTATIONS.has(keyword) && !(CHECKED as readonly string[]).includes(keyword),
  );
  // The one pattern a field decorator states is a label's (StringField `label`), reported as such.
  const pattern = rest.pattern === undefined || rest.pattern === LABEL_PATTERN;
  if (type === undefined || unknown.length || !pattern) return undefined;
  const steps: JsonSchema[] = [];
  if (items !== undefined) {
    const { type: itemType, ...itemRest } = items as JsonSchema;
    if (typeof itemType !== 'string' || Object.keys(itemRest).length) return undefined;
    steps.push({ items: { type: itemType } });
  }
  for (const keyword of CHECKED) {
    if (rest[keyword] !== undefined) steps.push({ [keyword]: rest[keyword] });
  }
  return steps.length ? { type, allOf: steps } : { type };
}

const compiled = new WeakMap<Type, CompiledValidator | null>();

/**
 * The compiled validator of a DTO class, made on first use and kept (the tool registry asks for
 * every tool's at start-up). Null for a DTO that is not made of field decorators only: one with
 * raw class-validator decorators, whose fields then go through class-validator.
 */
export function compiledValidatorFor(dto: Type): CompiledValidator | null {
  let validator = compiled.get(dto);
  if (validator === undefined) {
    validator = compile(dto);
    compiled.set(dto, validator);
  }
  return validator;
}

function compile(dto: Type): CompiledValidator | null {
  const rules = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  if (!rules.every((rule) => isFieldConstraint(rule.context))) return null;
  const names = [...new Set(rules.map((rule) => rule.propertyName))];
  const schema = jsonSchemaOf(dto);
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  if (Object.keys(properties).length !== names.length) return null;
  const fields: Field[] = [];
  for (const name of names) {
    const property = properties[name];
    const ordered = property && orderedSchema(property);
    if (!ordered) return null;
    fields.push({
      name,
      required: required.has(name),
      hasDefault: 'default' in property,
      default: property.default,
      schema: property,
      check: ajv.compile(ordered),
    });
  }
  return new CompiledValidator(dto, fields);
}

const defaults = new WeakMap<Type, [string, unknown][]>();

/** The defaults a DTO's fields state (read once), for DTOs validated by class-validator. */
export function defaultsOf(dto: Type): [string, unknown][] {
  let stated = defaults.get(dto);
  if (!stated) {
    const properties = (jsonSchemaOf(dto).properties ?? {}) as Record<string, JsonSchema>;
    stated = Object.entries(properties)
      .filter(([, property]) => 'default' in property)
      .map(([name, property]) => [name, property.default]);
    defaults.set(dto, stated);
  }
  return stated;
}
