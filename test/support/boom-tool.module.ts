import { Body, Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { StringField } from '../../src/kernel/validation/fields';
import { Tool, ToolController } from '../../src/tools/tool.decorator';

class BoomInput {
  @StringField({ description: 'Anything.', optional: true })
  reason?: string;
}

class BoomResult {
  @ApiProperty() never: string;
}

/** A tool that fails unexpectedly, to show what a client and the log see of a 500. */
@ToolController()
class BoomController {
  @Tool({ name: 'boom', description: 'Always throws.', input: BoomInput, output: BoomResult })
  boom(@Body() input: BoomInput): BoomResult {
    throw new Error(`database password is hunter2 (${input.reason ?? 'no reason'})`);
  }
}

@Module({ controllers: [BoomController] })
export class BoomToolModule {}
