import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  ValidateIf,
  ValidationOptions,
} from 'class-validator';
import { LABEL_PATTERN, labelProblem } from '../common/text';
import {
  atLeast,
  atMost,
  IssueContext,
  notALabel,
  notOneOf,
  tooLong,
  tooManyItems,
  tooShort,
  TYPE_ISSUES,
} from './issues';

/**
 * Field decorators for request DTOs. Each one states a field once and from that one statement
 * derives the OpenAPI / JSON Schema property, which the compiled validator checks requests
 * against (compiled.validator.ts), and the same rules as class-validator constraints (with the
 * pydantic error type and message each reports), for a DTO that mixes these fields with raw
 * class-validator decorators. A default is stated here too (`default`), not as a class
 * initialiser: the schema shows it and validation fills it in.
 */
interface FieldOptions {
  description: string;
  /** May be left out; `null` is still a type error, as in pydantic. */
  optional?: boolean;
  /** May be `null` (implies optional). */
  nullable?: boolean;
  example?: unknown;
}

/** The contexts of the constraints put by these decorators, and nothing else. */
const fieldContexts = new WeakSet<object>();

/** Whether a class-validator constraint was put by a field decorator of this file. */
export function isFieldConstraint(context: unknown): boolean {
  return typeof context === 'object' && context !== null && fieldContexts.has(context);
}

const issue = ({ type, msg }: IssueContext, extra: ValidationOptions = {}): ValidationOptions => {
  const context: IssueContext = msg === undefined ? { type } : { type, msg };
  fieldContexts.add(context);
  return { ...extra, context };
};

function presence(options: FieldOptions): PropertyDecorator[] {
  // ValidateIf reports nothing: its context only marks it as a field decorator's.
  const marked = issue({ type: 'missing' });
  if (options.nullable)
    return [ValidateIf((_, value) => value !== undefined && value !== null, marked)];
  if (options.optional) return [ValidateIf((_, value) => value !== undefined, marked)];
  return [];
}

function schema(options: FieldOptions, extra: Record<string, unknown>): PropertyDecorator {
  return ApiProperty({
    description: options.description,
    required: !(options.optional || options.nullable),
    nullable: options.nullable || undefined,
    example: options.example,
    ...extra,
  });
}

/**
 * Text that is shown again (a name, a label): no control characters, bidi controls or lone
 * surrogates (src/kernel/common/text.ts). Checked after the length, as a pydantic after-validator would.
 */
function IsLabel(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isLabel',
      validator: {
        validate: (value) => typeof value === 'string' && labelProblem(value) === undefined,
      },
    },
    issue(
      { type: 'value_error' },
      { message: ({ value }) => notALabel(typeof value === 'string' ? value : '').msg },
    ),
  );
}

export function StringField(
  options: FieldOptions & {
    minLength?: number;
    maxLength?: number;
    enum?: readonly string[];
    default?: string;
    /** Text an operator or a client names something by: see IsLabel. */
    label?: boolean;
  },
): PropertyDecorator {
  const { minLength, maxLength } = options;
  return applyDecorators(
    ...presence(options),
    IsString(issue(TYPE_ISSUES.string)),
    ...(minLength !== undefined ? [MinLength(minLength, issue(tooShort(minLength)))] : []),
    ...(maxLength !== undefined ? [MaxLength(maxLength, issue(tooLong(maxLength)))] : []),
    ...(options.label ? [IsLabel()] : []),
    ...(options.enum ? [IsIn([...options.enum], issue(notOneOf(options.enum)))] : []),
    schema(options, {
      type: String,
      minLength,
      maxLength,
      pattern: options.label ? LABEL_PATTERN : undefined,
      enum: options.enum,
      default: options.default,
    }),
  );
}

export function IntField(
  options: FieldOptions & { minimum?: number; maximum?: number; default?: number },
): PropertyDecorator {
  const { minimum, maximum } = options;
  return applyDecorators(
    ...presence(options),
    IsInt(issue(TYPE_ISSUES.integer)),
    ...(minimum !== undefined ? [Min(minimum, issue(atLeast(minimum)))] : []),
    ...(maximum !== undefined ? [Max(maximum, issue(atMost(maximum)))] : []),
    schema(options, { type: 'integer', minimum, maximum, default: options.default }),
  );
}

export function BoolField(options: FieldOptions & { default?: boolean }): PropertyDecorator {
  return applyDecorators(
    ...presence(options),
    IsBoolean(issue(TYPE_ISSUES.boolean)),
    schema(options, { type: Boolean, default: options.default }),
  );
}

export function StringListField(
  options: FieldOptions & { maxItems?: number; items?: readonly string[] },
): PropertyDecorator {
  const { maxItems } = options;
  return applyDecorators(
    ...presence(options),
    IsArray(issue(TYPE_ISSUES.array)),
    ...(maxItems !== undefined
      ? [
          ArrayMaxSize(
            maxItems,
            issue(
              { type: 'too_long' },
              {
                // Asked of any value that fails, a list or not (a non-list reports list_type
                // instead, but its message is still made).
                message: ({ value }) =>
                  tooManyItems(maxItems, Array.isArray(value) ? value.length : 0).msg,
              },
            ),
          ),
        ]
      : []),
    IsString({ each: true, ...issue(TYPE_ISSUES.string) }),
    schema(options, { type: [String], maxItems }),
  );
}
