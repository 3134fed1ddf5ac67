import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { compiledValidatorFor } from '../validation/compiled.validator';
import { JsonSchema, jsonSchemaOf } from '../validation/json-schema';
import type { ToolContext } from './tool-runner';
import { ToolDefinition, ToolMetadata, TOOLS_PATH } from './tool.decorator';

export interface RegisteredTool extends ToolDefinition {
  path: string;
  /** JSON Schemas derived from the input and output DTOs (the same as OpenAPI's). */
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /** Runs the tool's handler on an already validated input. */
  invoke(input: object, context: ToolContext): Promise<unknown>;
}

/** Every `@Tool()` handler of the application, found through Nest's discovery at start-up. */
@Injectable()
export class ToolRegistry implements OnModuleInit {
  private readonly tools = new Map<string, RegisteredTool>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getControllers()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || !wrapper.isDependencyTreeStatic()) continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const handler = instance[method] as (input: object, context: ToolContext) => unknown;
        const definition = this.reflector.get(ToolMetadata, handler);
        if (!definition) continue;
        if (this.tools.has(definition.name)) {
          throw new Error(`Two tools are named '${definition.name}'`);
        }
        // Its validator is compiled now: a schema ajv refuses stops the start, no call waits.
        compiledValidatorFor(definition.input);
        this.tools.set(definition.name, {
          ...definition,
          path: `/${TOOLS_PATH}/${definition.name}`,
          inputSchema: jsonSchemaOf(definition.input),
          outputSchema: jsonSchemaOf(definition.output, false),
          invoke: (input, context) => Promise.resolve(handler.call(instance, input, context)),
        });
      }
    }
  }

  list(): RegisteredTool[] {
    return [...this.tools.values()];
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }
}
