import { ApiProperty } from '@nestjs/swagger';
import { BoolField, IntField, StringField } from '../../kernel/validation/fields';

export class GreetInput {
  @StringField({ description: 'Name to greet.', minLength: 1, maxLength: 200, example: 'Alice' })
  name: string;

  @BoolField({
    description: 'When true, the greeting is uppercase.',
    optional: true,
    default: false,
  })
  shout: boolean;

  @IntField({
    description: 'Repetition count, echoed back; the message itself is not repeated.',
    optional: true,
    minimum: 1,
    maximum: 100,
    default: 1,
  })
  times: number;
}

export class GreetResult {
  @ApiProperty({
    description: 'The greeting text; uppercase when `shout` was true.',
    example: 'Hello, Alice!',
  })
  message: string;

  @ApiProperty({ type: 'integer', description: 'The repetition count.', example: 1 })
  times: number;
}
