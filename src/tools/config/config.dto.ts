import { ApiProperty } from '@nestjs/swagger';
import { StringField } from '../../kernel/validation/fields';
import type { ConfigScalar, ConfigTree, ConfigValue } from '../../configuration';
import { MAX_KEY_LENGTH, MAX_VALUE_LENGTH } from '../../configuration';

const KEY_FIELD = {
  description: 'Dot-separated configuration path, such as `logging.level` or `server`.',
  minLength: 1,
  maxLength: MAX_KEY_LENGTH,
  example: 'logging.level',
};

const SCALAR_SCHEMAS = [
  { type: 'boolean' },
  { type: 'integer' },
  { type: 'number' },
  { type: 'string' },
];

/** `config_show` takes no fields: `{}` (or no body). */
export class ConfigShowInput {}

export class ConfigShowResult {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The effective configuration tree; secrets that are set read "********".',
    example: {
      logging: { level: 'info', verbose: false },
      server: { host: '0.0.0.0', port: 8000 },
    },
  })
  config: ConfigTree;
}

export class ConfigGetInput {
  @StringField(KEY_FIELD)
  key: string;
}

export class ConfigGetResult {
  @ApiProperty({ description: 'The requested path, echoed.', example: 'logging.level' })
  key: string;

  @ApiProperty({
    description: "The value in its own type; a section's object for a section key.",
    anyOf: [...SCALAR_SCHEMAS, { type: 'object', additionalProperties: true }],
    example: 'info',
  })
  value: ConfigValue;
}

export class ConfigSetInput {
  @StringField(KEY_FIELD)
  key: string;

  @StringField({
    description:
      'The new value as a string, coerced: true/yes/false/no (any case), integer, decimal, else the string itself.',
    maxLength: MAX_VALUE_LENGTH,
    example: 'debug',
  })
  value: string;
}

export class ConfigSetResult {
  @ApiProperty({ description: 'The path that was set.', example: 'logging.level' })
  key: string;

  @ApiProperty({
    description: 'The value after coercion, as stored; "********" for a secret.',
    anyOf: SCALAR_SCHEMAS,
    example: 'debug',
  })
  coerced_value: ConfigScalar;
}
