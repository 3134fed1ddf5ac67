import { Module, Type } from '@nestjs/common';
import type { ToolContext } from './tool-runner';
import { Tool, ToolController, ToolDefinition } from './tool.decorator';

/** A tool in one file: its @Tool() definition, typed by its DTOs, and the handler itself. */
export interface OneFileTool<I extends object, O extends object> extends ToolDefinition {
  input: Type<I>;
  output: Type<O>;
  /**
   * The work: the validated input (an instance of `input`, defaults filled in) and the call's
   * context (its caller, its `signal`, `progress`); the output or its promise.
   */
  handler: (input: I, context: ToolContext) => O | Promise<O>;
}

/** `word_count` → `WordCount`: the classes' names in stack traces and Nest's messages. */
function pascal(name: string): string {
  return name.replace(/(?:^|_)([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * The one-file form of a tool: a module (`<Name>ToolModule`) with one @ToolController() whose one
 * @Tool() method calls `handler`, the same as a tool written as a module, a controller and a
 * service, so it reaches every surface alike (REST, discovery, OpenAPI, MCP over HTTP and stdio,
 * scopes, credits). Its line in `src/tools.ts` (or the kit's `tools`) mounts it. A tool that needs
 * services of its own is written in the larger form (docs/adding-a-tool.md).
 */
export function defineTool<I extends object, O extends object>(
  definition: OneFileTool<I, O>,
): Type {
  const { handler, ...tool } = definition;
  const name = pascal(tool.name);
  const controller = class {} as Type;
  Object.defineProperty(controller, 'name', { value: `${name}Tool` });
  const method: PropertyDescriptor = {
    value: (input: I, context: ToolContext) => handler(input, context),
    writable: true,
    configurable: true,
  };
  Object.defineProperty(controller.prototype, tool.name, method);
  Tool(tool)(controller.prototype as object, tool.name, method);
  ToolController()(controller);
  const module = class {} as Type;
  Object.defineProperty(module, 'name', { value: `${name}ToolModule` });
  Module({ controllers: [controller] })(module);
  return module;
}
