import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ToolCatalog } from '../kernel/auth/scopes';
import { Settings, SETTINGS } from '../kernel/settings/settings';
import { compiledValidatorFor } from '../kernel/validation/compiled.validator';
import { JsonSchema, jsonSchemaOf } from '../kernel/validation/json-schema';
import type { ToolContext } from './tool-runner';
import {
  TOOL_DEFAULTS,
  ToolAsyncMode,
  ToolDefinition,
  ToolMetadata,
  TOOLS_PATH,
} from './tool.decorator';

/** A caller's share of a tool while others want it, unless `tools.<name>.per_caller_share` says. */
export const DEFAULT_PER_CALLER_SHARE = 0.25;

/** How the runtime runs a tool: its declaration, the operator's `tools:` section over it. */
export interface ToolRuntimeSettings {
  timeoutMs: number;
  concurrency: number;
  queue: number;
  cost: number;
  async: ToolAsyncMode;
  /**
   * The fraction of `concurrency` and of `queue` one caller may hold on an instance while another
   * caller wants the tool (docs/long-running-calls.md). Only CONFIG_FILE's
   * `tools.<name>.per_caller_share` sets it; default 0.25.
   */
  perCallerShare: number;
}

export interface RegisteredTool extends ToolDefinition {
  path: string;
  runtime: ToolRuntimeSettings;
  /** JSON Schemas derived from the input and output DTOs (the same as OpenAPI's). */
  inputSchema: JsonSchema;
  /** Undefined for a source's tool whose upstream declares none. */
  outputSchema?: JsonSchema;
  /**
   * Runs the tool's handler on an already validated input: its answer, or the promise of it (a
   * synchronous handler's answer comes back as it is, so that the runtime pays nothing for what
   * it need not wait for).
   */
  invoke(input: object, context: ToolContext): unknown;
  /** A source's tool (src/sources/): the source's name; undefined for a native tool. */
  source?: string;
  /** A source's tool: its name upstream. */
  upstreamName?: string;
  /** A source's tool whose answer is an MCP result (an MCP upstream's), passed on as it came. */
  answersMcpResult?: boolean;
  /**
   * A source's tool: checks the arguments against the upstream's own JSON Schema (ajv) and answers
   * the input; a native tool's input is its DTO's, checked by the validation pipe.
   */
  validateInput?(args: unknown): object;
}

/** Every `@Tool()` handler of the application, found through Nest's discovery at start-up. */
@Injectable()
export class ToolRegistry extends ToolCatalog implements OnModuleInit {
  private readonly tools = new Map<string, RegisteredTool>();
  private readonly costsByTool = new Map<string, number>();
  /** Tool names in lower case: collisions are found as routes match, case-insensitively. */
  private readonly lowerNames = new Set<string>();
  /** The sources that have tools here: `@<source>` of `services:execute:@<source>`. */
  private readonly sources = new Map<string, number>();
  private version = 0;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {
    super();
  }

  /** The registered tools' names: what `services:execute:<tool>` scopes may name. */
  names(): string[] {
    return [...this.tools.keys(), ...[...this.sources.keys()].map((source) => `@${source}`)];
  }

  /** Counts every change of the tools (a source's tools added or removed): caches compare it. */
  changes(): number {
    return this.version;
  }

  /** Whether a tool has this name, case aside. */
  isTaken(name: string): boolean {
    return this.lowerNames.has(name.toLowerCase());
  }

  /** Adds a source's tool (src/sources/): its name must not be taken, case aside. */
  register(tool: RegisteredTool): void {
    if (this.isTaken(tool.name)) throw new Error(`A tool is already named '${tool.name}'`);
    this.tools.set(tool.name, tool);
    this.lowerNames.add(tool.name.toLowerCase());
    this.costsByTool.set(tool.name, tool.runtime.cost);
    if (tool.source) this.sources.set(tool.source, (this.sources.get(tool.source) ?? 0) + 1);
    this.version++;
  }

  /** Removes a source's tool; a native tool stays. */
  unregister(name: string): void {
    const tool = this.tools.get(name);
    if (!tool?.source) return;
    this.tools.delete(name);
    this.lowerNames.delete(name.toLowerCase());
    this.costsByTool.delete(name);
    const left = (this.sources.get(tool.source) ?? 1) - 1;
    if (left > 0) this.sources.set(tool.source, left);
    else this.sources.delete(tool.source);
    this.version++;
  }

  costs(): ReadonlyMap<string, number> {
    return this.costsByTool;
  }

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
          runtime: {
            timeoutMs: definition.timeoutMs ?? TOOL_DEFAULTS.timeoutMs,
            concurrency: definition.concurrency ?? TOOL_DEFAULTS.concurrency,
            queue: definition.queue ?? TOOL_DEFAULTS.queue,
            cost: definition.cost ?? TOOL_DEFAULTS.cost,
            async: definition.async ?? TOOL_DEFAULTS.async,
            perCallerShare: DEFAULT_PER_CALLER_SHARE,
            ...this.settings.toolOverrides[definition.name],
          },
          inputSchema: jsonSchemaOf(definition.input),
          outputSchema: jsonSchemaOf(definition.output, false),
          invoke: (input, context) => handler.call(instance, input, context),
        });
      }
    }
    this.checkOverrides();
    for (const tool of this.tools.values()) {
      this.costsByTool.set(tool.name, tool.runtime.cost);
      this.lowerNames.add(tool.name.toLowerCase());
    }
  }

  /**
   * Every name of CONFIG_FILE's `tools:` section and of a plan's `tool_costs` must be a tool: a
   * typo stops the start.
   */
  private checkOverrides(): void {
    const named = [
      ...Object.keys(this.settings.toolOverrides).map((name) => [`tools.${name}`, name]),
      ...Object.entries(this.settings.plans).flatMap(([plan, limits]) =>
        Object.keys(limits.tool_costs).map((name) => [
          `limits.plans.${plan}.tool_costs.${name}`,
          name,
        ]),
      ),
    ];
    for (const [where, name] of named) {
      if (!this.tools.has(name)) {
        throw new Error(
          `Invalid CONFIG_FILE: ${where} names no tool (tools: ${[...this.tools.keys()].sort().join(', ')})`,
        );
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
