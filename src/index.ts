/**
 * The package's entry (`tool-invocation-service`): what a team's tool is written with, in its own
 * repository as in `src/tools/`. A tool in one file is `defineTool`; a larger one a module with a
 * `@ToolController()` and its `@Tool()` methods (docs/adding-a-tool.md). The test kit is the
 * package's `/testing` entry (src/testing/).
 */
import 'reflect-metadata';

export { ApiProperty } from '@nestjs/swagger';
export {
  BoolField,
  defineTool,
  IntField,
  StringField,
  StringListField,
  Tool,
  ToolController,
} from './tools/index';
export type {
  OneFileTool,
  ProgressReporter,
  ToolAnnotations,
  ToolAsyncMode,
  ToolContext,
  ToolDefinition,
} from './tools/index';
export type { Caller } from './subjects';
export { TOOL_MODULES } from './tools';
