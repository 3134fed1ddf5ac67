import { Inject, InjectionToken, Module, ModuleMetadata, Type } from '@nestjs/common';
import type { ToolContext } from './tool-runner';
import { Tool, ToolController, ToolDefinition } from './tool.decorator';

/** A tool in one file: its @Tool() definition, typed by its DTOs, and the handler itself. */
export interface OneFileTool<
  I extends object,
  O extends object,
  D extends unknown[] = [],
> extends ToolDefinition {
  input: Type<I>;
  output: Type<O>;
  /** Modules the tool needs (its configuration section: `ConfigurationModule.forFeature`). */
  imports?: ModuleMetadata['imports'];
  /** What the handler gets after the context, in this order (`ConfigurationService`...). */
  inject?: { [K in keyof D]: Type<D[K]> | InjectionToken };
  /**
   * The work: the validated input (an instance of `input`, defaults filled in), the call's
   * context (its caller, its `signal`, `progress`) and what `inject` names; the output or its
   * promise.
   */
  handler: (input: I, context: ToolContext, ...injected: D) => O | Promise<O>;
}

/** `word_count` → `WordCount`: the prefix of a tool's classes (`WordCountToolModule`). */
export function toolClassPrefix(name: string): string {
  return name.replace(/(?:^|_)([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * The one-file form of a tool: a module (`<Name>ToolModule`) with one @ToolController() whose one
 * @Tool() method calls `handler`, the same as a tool written as a module, a controller and a
 * service, so it reaches every surface alike (REST, discovery, OpenAPI, MCP over HTTP and stdio,
 * scopes, credits). Its line in `src/tools.ts` (or the kit's `tools`) mounts it. A tool with
 * services of its own is written in the larger form (docs/adding-a-tool.md).
 */
export function defineTool<I extends object, O extends object, D extends unknown[] = []>(
  definition: OneFileTool<I, O, D>,
): Type {
  const { handler, imports = [], inject = [], ...tool } = definition;
  const name = toolClassPrefix(tool.name);
  const controller = class {
    readonly injected: D;
    constructor(...injected: D) {
      this.injected = injected;
    }
  };
  Object.defineProperty(controller, 'name', { value: `${name}Tool` });
  (inject as InjectionToken[]).forEach((token, index) =>
    Inject(token)(controller, undefined, index),
  );
  const method: PropertyDescriptor = {
    value(this: InstanceType<typeof controller>, input: I, context: ToolContext) {
      return handler(input, context, ...this.injected);
    },
    writable: true,
    configurable: true,
  };
  Object.defineProperty(controller.prototype, tool.name, method);
  Tool(tool)(controller.prototype, tool.name, method);
  ToolController()(controller);
  const module = class {};
  Object.defineProperty(module, 'name', { value: `${name}ToolModule` });
  Module({ imports, controllers: [controller] })(module);
  return module;
}
