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
  ValidateIf,
  ValidationOptions,
} from 'class-validator';
import type { IssueContext } from './validation.pipe';

/**
 * Field decorators for request DTOs. Each one states a field once and from that one statement
 * derives both the class-validator rules (with the pydantic error type and message each reports)
 * and the OpenAPI / JSON Schema property, so the published schema cannot drift from validation.
 */
interface FieldOptions {
  description: string;
  /** May be left out; `null` is still a type error, as in pydantic. */
  optional?: boolean;
  /** May be `null` (implies optional). */
  nullable?: boolean;
  example?: unknown;
}

const issue = (type: string, msg: string, extra: ValidationOptions = {}): ValidationOptions => ({
  ...extra,
  context: { type, msg } satisfies IssueContext,
});

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function presence(options: FieldOptions): PropertyDecorator[] {
  if (options.nullable) return [ValidateIf((_, value) => value !== undefined && value !== null)];
  if (options.optional) return [ValidateIf((_, value) => value !== undefined)];
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

export function StringField(
  options: FieldOptions & {
    minLength?: number;
    maxLength?: number;
    enum?: readonly string[];
    default?: string;
  },
): PropertyDecorator {
  const { minLength, maxLength } = options;
  return applyDecorators(
    ...presence(options),
    IsString(issue('string_type', 'Input should be a valid string')),
    ...(minLength !== undefined
      ? [
          MinLength(
            minLength,
            issue(
              'string_too_short',
              `String should have at least ${plural(minLength, 'character')}`,
            ),
          ),
        ]
      : []),
    ...(maxLength !== undefined
      ? [
          MaxLength(
            maxLength,
            issue(
              'string_too_long',
              `String should have at most ${plural(maxLength, 'character')}`,
            ),
          ),
        ]
      : []),
    ...(options.enum
      ? [
          IsIn(
            [...options.enum],
            issue(
              'literal_error',
              `Input should be ${options.enum.map((v) => `'${v}'`).join(', ')}`,
            ),
          ),
        ]
      : []),
    schema(options, {
      type: String,
      minLength,
      maxLength,
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
    IsInt(issue('int_type', 'Input should be a valid integer')),
    ...(minimum !== undefined
      ? [
          Min(
            minimum,
            issue('greater_than_equal', `Input should be greater than or equal to ${minimum}`),
          ),
        ]
      : []),
    ...(maximum !== undefined
      ? [Max(maximum, issue('less_than_equal', `Input should be less than or equal to ${maximum}`))]
      : []),
    schema(options, { type: 'integer', minimum, maximum, default: options.default }),
  );
}

export function BoolField(options: FieldOptions & { default?: boolean }): PropertyDecorator {
  return applyDecorators(
    ...presence(options),
    IsBoolean(issue('bool_type', 'Input should be a valid boolean')),
    schema(options, { type: Boolean, default: options.default }),
  );
}

export function StringListField(
  options: FieldOptions & { maxItems?: number; items?: readonly string[] },
): PropertyDecorator {
  return applyDecorators(
    ...presence(options),
    IsArray(issue('list_type', 'Input should be a valid list')),
    ...(options.maxItems !== undefined
      ? [
          ArrayMaxSize(options.maxItems, {
            // pydantic's words, with the length it saw. Asked of any value that fails, a list or
            // not (a non-list reports list_type instead, but its message is still made).
            message: ({ value }) =>
              `List should have at most ${plural(options.maxItems as number, 'item')} after validation, not ${Array.isArray(value) ? value.length : 0}`,
            context: { type: 'too_long' },
          }),
        ]
      : []),
    IsString({ each: true, ...issue('string_type', 'Input should be a valid string') }),
    schema(options, { type: [String], maxItems: options.maxItems }),
  );
}
