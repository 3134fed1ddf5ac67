import { Body, Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsEmail } from 'class-validator';
import { Tool, ToolController } from '../../src/tools/tool.decorator';
import { BoolField } from '../../src/kernel/validation/fields';

/**
 * A team's tool whose DTO uses a raw class-validator decorator beside a field decorator
 * (docs/adding-a-tool.md, Notes): validated by class-validator, in the same shape.
 */
export class SubscribeInput {
  @ApiProperty({ description: 'Where the news go.', format: 'email' })
  @IsEmail({}, { message: 'Value error, not an email address' })
  email: string;

  @BoolField({ description: 'Weekly instead of daily.', optional: true, default: true })
  weekly: boolean;
}

export class SubscribeResult {
  @ApiProperty() email: string;
  @ApiProperty() weekly: boolean;
}

@ToolController()
export class SubscribeController {
  @Tool({
    name: 'subscribe',
    description: 'Subscribe an address to the news.',
    input: SubscribeInput,
    output: SubscribeResult,
  })
  subscribe(@Body() { email, weekly }: SubscribeInput): SubscribeResult {
    return { email, weekly };
  }
}

@Module({ controllers: [SubscribeController] })
export class SubscribeModule {}
