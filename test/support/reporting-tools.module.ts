import { Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Tool, ToolController } from '../../src/tools/tool.decorator';
import { StringField } from '../../src/kernel/validation/fields';

/** Test-only tools whose long-running calls' results do or do not go out with their events. */
export class ReportInput {
  @StringField({ description: 'What the report says.', maxLength: 100 })
  text: string;
}

export class ReportResult {
  @ApiProperty() text: string;
}

@ToolController()
export class ReportingToolsController {
  @Tool({
    name: 'shared_report',
    description: 'Its result goes out with invocation.finished.',
    input: ReportInput,
    output: ReportResult,
    webhookResult: true,
  })
  shared(input: ReportInput): ReportResult {
    return { text: input.text };
  }

  @Tool({
    name: 'private_report',
    description: 'Its result never leaves the service in an event.',
    input: ReportInput,
    output: ReportResult,
  })
  private(input: ReportInput): ReportResult {
    return { text: input.text };
  }
}

@Module({ controllers: [ReportingToolsController] })
export class ReportingToolsModule {}
