import { Body, Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Tool, ToolController } from '../../src/tools/tool.decorator';

/** Words that must never reach a client: the failure's own message. */
export const FAILURE_SECRET = 'internal detail: the flux capacitor is unplugged';

class NoInput {}

class NoOutput {
  @ApiProperty() never: string;
}

/** A tool that always fails with an unexpected error: for the 500 path, its logs and its metrics. */
@ToolController()
export class FailingToolController {
  @Tool({ name: 'explode', description: 'Always fails.', input: NoInput, output: NoOutput })
  explode(@Body() _input: NoInput): NoOutput {
    throw new Error(FAILURE_SECRET);
  }
}

@Module({ controllers: [FailingToolController] })
export class FailingToolModule {}
