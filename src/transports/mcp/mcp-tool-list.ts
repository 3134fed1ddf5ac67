import { Inject, Injectable } from '@nestjs/common';
import type { Tool } from '@modelcontextprotocol/server';
import type { Caller } from '../../subjects';
import { hasScope, toolScope } from '../../auth';
import { toolCost } from '../../limits';
import { Settings, SETTINGS } from '../../kernel/settings/settings';
import { RegisteredTool, ToolRegistry } from '../../tools/index';

/** Where a tool's cost to the caller is in tools/list: each tool's `_meta`. */
export const COST_META = 'io.tis/cost';
/** Lists made for callers of one plan and scopes, kept before the oldest is forgotten. */
const MAX_CACHED_LISTS = 1000;

/** `word_count` -> `Word count`: a tool's title when it gives none. */
function titleOf(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A tool as tools/list shows it: its title, every annotation (the spec's defaults filled in), and
 * what a call costs the caller in `_meta["io.tis/cost"]`.
 */
function describeTool(tool: RegisteredTool, cost: number): Tool {
  const title = tool.title ?? titleOf(tool.name);
  const hints = tool.annotations ?? {};
  return {
    name: tool.name,
    title,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    outputSchema: tool.outputSchema,
    annotations: {
      title,
      readOnlyHint: hints.readOnlyHint ?? false,
      destructiveHint: hints.destructiveHint ?? true,
      idempotentHint: hints.idempotentHint ?? false,
      openWorldHint: hints.openWorldHint ?? true,
    },
    _meta: { [COST_META]: cost },
  };
}

/**
 * MCP's tools/list for a caller: only the tools it may call (`services:execute`, or its
 * `services:execute:<tool>` scopes), sorted by name, each with its cost on the caller's plan. A list
 * depends on the plan and the scopes only, so it is made once for each such pair.
 */
@Injectable()
export class McpToolList {
  private readonly cache = new Map<string, { tools: Tool[] }>();

  constructor(
    private readonly registry: ToolRegistry,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  forCaller(caller: Pick<Caller, 'plan' | 'scopes'> | undefined): { tools: Tool[] } {
    const plan = caller?.plan ?? this.settings.defaultPlan;
    const scopes = caller?.scopes ?? ['services:execute'];
    const at = `${plan} ${scopes.join(' ')}`;
    let listed = this.cache.get(at);
    if (!listed) {
      listed = {
        tools: this.registry
          .list()
          .filter((tool) => hasScope(scopes, toolScope(tool.name)))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
          .map((tool) =>
            describeTool(tool, toolCost(this.settings, plan, tool.name, tool.runtime.cost)),
          ),
      };
      if (this.cache.size >= MAX_CACHED_LISTS)
        this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(at, listed);
    }
    return listed;
  }
}
