/**
 * The tools feature's public entry: what the other features, the transports, the tools and
 * the processes may use of it. Nothing else of this folder is imported from outside it.
 */
export { ToolRunner } from './tool-runner';
export type { ProgressReporter, ToolContext } from './tool-runner';
export {
  TOOLS_PATH,
  TOOL_SCOPE,
  Tool,
  ToolController,
  ToolRoute,
  declaredToolNames,
} from './tool.decorator';
export { ToolRegistry } from './tool.registry';
export type { RegisteredTool, ToolRuntimeSettings } from './tool.registry';
export { ToolList } from './tools.dto';
export { ToolsModule } from './tools.module';
export { defineTool, toolClassPrefix } from './define-tool';
export type { OneFileTool } from './define-tool';
export type { ToolAnnotations, ToolAsyncMode, ToolDefinition } from './tool.decorator';
export { BoolField, IntField, StringField, StringListField } from '../kernel/validation/fields';
