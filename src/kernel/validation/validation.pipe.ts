import {
  ArgumentMetadata,
  Injectable,
  Type,
  ValidationError,
  ValidationPipe,
} from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import type { ValidationIssue } from '../errors/validation-issue';
import { InputRefused, MAX_ISSUES, ValidationFailed } from '../errors/api-error';
import { CompiledValidator, compiledValidatorFor, copyOf, defaultsOf } from './compiled.validator';
import {
  BODY_NOT_OBJECT,
  echoedName,
  EXTRA_FORBIDDEN,
  IssueContext,
  MISSING,
  TYPE_ERRORS,
} from './issues';
import { isPlainObject } from '../common/plain-object';

export { BODY_NOT_OBJECT } from './issues';

/** For constraints used without our field decorators (a team's own DTO): the nearest pydantic type. */
const FALLBACK_TYPES: Record<string, string> = {
  isString: 'string_type',
  isBoolean: 'bool_type',
  isInt: 'int_type',
  isNumber: 'float_type',
  isArray: 'list_type',
  isObject: 'dict_type',
  min: 'greater_than_equal',
  max: 'less_than_equal',
  minLength: 'string_too_short',
  maxLength: 'string_too_long',
  isIn: 'literal_error',
  isEnum: 'enum',
  isDefined: 'missing',
  isNotEmpty: 'string_too_short',
};

/** Keys that could reach an object's prototype if ever assigned: never accepted from a client. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function issueFor(error: ValidationError, loc: (string | number)[]): ValidationIssue {
  const constraints = Object.keys(error.constraints ?? {});
  if (constraints.includes('whitelistValidation')) {
    return { loc, ...EXTRA_FORBIDDEN };
  }
  if (error.value === undefined) return { loc, ...MISSING };
  const candidates = constraints.map((name) => {
    const context = error.contexts?.[name] as Partial<IssueContext> | undefined;
    return {
      type: context?.type ?? FALLBACK_TYPES[name] ?? 'value_error',
      msg: context?.msg ?? error.constraints?.[name] ?? 'Invalid value',
    };
  });
  const chosen = candidates.find((c) => TYPE_ERRORS.has(c.type)) ?? candidates[0];
  return { loc, msg: chosen.msg, type: chosen.type };
}

/** Flattens class-validator's tree into pydantic-style entries, `loc` starting with `body`. */
export function toIssues(
  errors: ValidationError[],
  loc: (string | number)[] = ['body'],
): ValidationIssue[] {
  return errors.flatMap((error) => {
    const here = [
      ...loc,
      /^\d+$/.test(error.property) ? Number(error.property) : echoedName(error.property),
    ];
    const own =
      error.constraints && Object.keys(error.constraints).length ? [issueFor(error, here)] : [];
    return [...own, ...toIssues(error.children ?? [], here)];
  });
}

/**
 * The global pipe: strict types (no implicit conversion), unknown fields rejected, and every
 * failure answered as 400 `{detail: [{loc, msg, type}]}`. No body counts as `{}`; a body that is
 * not a JSON object is `dict_type`. A DTO made of our field decorators (fields.ts) is checked by
 * ajv functions compiled once from its JSON Schema (compiled.validator.ts), with no
 * class-transformer or class-validator call per request; a DTO with raw class-validator
 * decorators (a team's own) goes through class-validator, with the same answers.
 */
@Injectable()
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: true,
      // Off so that a DTO without fields (config_show's) takes `{}`: it has no metadata, and
      // whitelist + forbidNonWhitelisted below still reject every field it is sent.
      forbidUnknownValues: false,
      transformOptions: { enableImplicitConversion: false },
      validationError: { target: false, value: true },
      exceptionFactory: (errors: ValidationError[]) => new InputRefused(toIssues(errors)),
    });
  }

  /** The fields each class-validated DTO declares, read once from class-validator's metadata. */
  private readonly declared = new WeakMap<Type, Set<string>>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && this.toValidate(metadata)) {
      const body = value === undefined ? {} : value;
      if (!isPlainObject(body)) throw new InputRefused([BODY_NOT_OBJECT]);
      // Depth is already bounded: HTTP bodies while they are read (src/kernel/http/json-depth.ts), MCP
      // arguments by the ToolInvoker. A second walk here would cost as much as the parse.
      const dto = metadata.metatype;
      const compiled = this.compiledValidator(dto);
      if (!compiled) return this.validateBody(body, dto, metadata);
      const { known, extras } = splitDeclared(body, compiled.declared);
      const result = compiled.validate(known);
      if ('issues' in result || extras.length) {
        throw new InputRefused([...('issues' in result ? result.issues : []), ...extras]);
      }
      return result.value;
    }
    return super.transform(value, metadata);
  }

  /**
   * The DTO's compiled validator; null sends it through class-validator. A seam for the
   * differential spec and the micro-benchmark, which compare both paths on the same DTOs.
   */
  protected compiledValidator(dto: Type): CompiledValidator | null {
    return compiledValidatorFor(dto);
  }

  /** A class-validated DTO: only its declared fields reach class-transformer and class-validator. */
  private async validateBody(
    body: Record<string, unknown>,
    dto: Type,
    metadata: ArgumentMetadata,
  ): Promise<unknown> {
    const { known, extras } = splitDeclared(body, this.declaredFields(dto));
    let issues: ValidationIssue[] = [];
    let result: unknown;
    try {
      result = await super.transform(known, metadata);
    } catch (error) {
      if (!(error instanceof ValidationFailed)) throw error;
      // Unknown fields were found above. An extra class-validator finds at the top is a class
      // property without validation that the instance holds undefined, not the client's.
      issues = error.issues.filter((i) => i.type !== EXTRA_FORBIDDEN.type || i.loc.length > 2);
    }
    if (issues.length || extras.length) throw new InputRefused([...issues, ...extras]);
    return withDefaults(result as Record<string, unknown>, dto);
  }

  private declaredFields(type: Type): Set<string> {
    let fields = this.declared.get(type);
    if (!fields) {
      const rules = getMetadataStorage().getTargetValidationMetadatas(type, '', true, false);
      fields = new Set(rules.map((rule) => rule.propertyName));
      this.declared.set(type, fields);
    }
    return fields;
  }
}

/**
 * Unknown fields are found in one pass over the body's keys before any per-field work, and only
 * the declared fields are validated: a body of 40,000 unknown keys costs one loop. `__proto__`,
 * `constructor` and `prototype` are always unknown. Entries: declared fields first (by the
 * validator), then extras in body order, cut to MAX_ISSUES.
 */
function splitDeclared(
  body: Record<string, unknown>,
  declared: ReadonlySet<string>,
): { known: Record<string, unknown>; extras: ValidationIssue[] } {
  // No prototype: a declared field named like an Object method reads as absent when absent.
  const known = Object.create(null) as Record<string, unknown>;
  const extras: ValidationIssue[] = [];
  for (const key of Object.keys(body)) {
    if (declared.has(key) && !PROTOTYPE_KEYS.has(key)) {
      known[key] = body[key];
    } else if (extras.length < MAX_ISSUES) {
      extras.push({ loc: ['body', echoedName(key)], ...EXTRA_FORBIDDEN });
    }
  }
  return { known, extras };
}

/** The defaults the field decorators state, for the fields a class-validated body left out. */
function withDefaults(value: Record<string, unknown>, dto: Type): Record<string, unknown> {
  for (const [name, fallback] of defaultsOf(dto)) {
    if (value[name] === undefined) value[name] = copyOf(fallback);
  }
  return value;
}
