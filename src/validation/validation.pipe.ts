import {
  ArgumentMetadata,
  Injectable,
  Type,
  ValidationError,
  ValidationPipe,
} from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import type { ValidationIssue } from '../common/validation-issue';
import { MAX_ISSUES, ValidationFailed } from '../errors/api-error';

/**
 * What a field decorator tells the error mapping about one class-validator constraint: the pydantic
 * error type and message to report. Carried in class-validator's `context` option.
 */
export interface IssueContext {
  type: string;
  /** Absent: the constraint's own message (one that depends on the value). */
  msg?: string;
}

/** Type errors win over every other problem of a field, as in pydantic: one entry per field. */
const TYPE_ERRORS = new Set([
  'string_type',
  'bool_type',
  'int_type',
  'float_type',
  'list_type',
  'dict_type',
]);

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

export const BODY_NOT_OBJECT: ValidationIssue = {
  loc: ['body'],
  msg: 'Input should be a valid dictionary',
  type: 'dict_type',
};

/** Whether a parsed JSON value nests objects or arrays deeper than `limit`; iterative, so never overflows. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Keys that could reach an object's prototype if ever assigned: never accepted from a client. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function issueFor(error: ValidationError, loc: (string | number)[]): ValidationIssue {
  const constraints = Object.keys(error.constraints ?? {});
  if (constraints.includes('whitelistValidation')) {
    return { loc, msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
  }
  if (error.value === undefined) return { loc, msg: 'Field required', type: 'missing' };
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
    const here = [...loc, /^\d+$/.test(error.property) ? Number(error.property) : error.property];
    const own =
      error.constraints && Object.keys(error.constraints).length ? [issueFor(error, here)] : [];
    return [...own, ...toIssues(error.children ?? [], here)];
  });
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * The global pipe: class-validator with strict types (no implicit conversion), unknown fields rejected,
 * and every failure answered as 400 `{detail: [{loc, msg, type}]}`. No body counts as `{}`; a body
 * that is not a JSON object is `dict_type`.
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
      exceptionFactory: (errors: ValidationError[]) => new ValidationFailed(toIssues(errors)),
    });
  }

  /** The fields each DTO class declares, read once from class-validator's metadata. */
  private readonly declared = new WeakMap<Type, Set<string>>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && this.toValidate(metadata)) {
      const body = value === undefined ? {} : value;
      if (!isPlainObject(body)) throw new ValidationFailed([BODY_NOT_OBJECT]);
      // Depth is already bounded: HTTP bodies while they are read (src/http/json-depth.ts), MCP
      // arguments by the ToolInvoker. A second walk here would cost as much as the parse.
      return this.validateBody(body, metadata);
    }
    return super.transform(value, metadata);
  }

  /**
   * Unknown fields are found in one pass over the body's keys before any per-field work, and only
   * the declared fields reach class-transformer and class-validator: a body of 40,000 unknown keys
   * costs one loop, not 40,000 metadata lookups. Entries: declared fields first, then extras in
   * body order, cut to MAX_ISSUES.
   */
  private async validateBody(
    body: Record<string, unknown>,
    metadata: ArgumentMetadata,
  ): Promise<unknown> {
    const declared = this.declaredFields(metadata.metatype as Type);
    const known: Record<string, unknown> = {};
    const extras: ValidationIssue[] = [];
    for (const key of Object.keys(body)) {
      if (declared.has(key) && !PROTOTYPE_KEYS.has(key)) {
        known[key] = body[key];
      } else if (extras.length < MAX_ISSUES) {
        extras.push({
          loc: ['body', key],
          msg: 'Extra inputs are not permitted',
          type: 'extra_forbidden',
        });
      }
    }
    let issues: ValidationIssue[] = [];
    let result: unknown;
    try {
      result = await super.transform(known, metadata);
    } catch (error) {
      if (!(error instanceof ValidationFailed)) throw error;
      issues = error.issues;
    }
    if (issues.length || extras.length) throw new ValidationFailed([...issues, ...extras]);
    return result;
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
