import { Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Tool, ToolController } from '../../src/tools/tool.decorator';
import { StringField } from '../../src/kernel/validation/fields';

/** Test-only tools with prices other than 1 (credits, docs/keys-and-limits.md). */
export class PricedInput {
  @StringField({ description: 'Names the call.', optional: true, maxLength: 100 })
  label?: string;
}

export class PricedResult {
  @ApiProperty() label: string;
}

@ToolController()
export class PricedToolsController {
  @Tool({
    name: 'three',
    description: 'Costs 3 credits.',
    input: PricedInput,
    output: PricedResult,
    cost: 3,
  })
  three(input: PricedInput): PricedResult {
    return { label: input.label ?? 'three' };
  }

  @Tool({
    name: 'seven',
    description: 'Costs 7 credits.',
    input: PricedInput,
    output: PricedResult,
    cost: 7,
  })
  seven(input: PricedInput): PricedResult {
    return { label: input.label ?? 'seven' };
  }
}

@Module({ controllers: [PricedToolsController] })
export class PricedToolsModule {}
