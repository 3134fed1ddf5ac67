import { Inject, Injectable } from '@nestjs/common';
import type { Tool } from '@modelcontextprotocol/server';
import type { Caller } from '../../subjects';
import { hasAnyScope, toolScopes } from '../../kernel/auth/scopes';
import { toolCost } from '../../limits';
import { Settings, SETTINGS } from '../../kernel/settings/settings';
import { RegisteredTool, ToolRegistry } from '../../tools/index';
import type { McpCatalog } from './mcp-catalog';

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
function describeTool(tool: RegisteredTool, name: string, cost: number): Tool {
  const title = tool.title ?? titleOf(name);
  const hints = tool.annotations ?? {};
  return {
    name,
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
 * MCP's tools/list for a caller: only the tools of the endpoint's catalog (McpCatalog) it may call
 * (`services:execute`, or its `services:execute:<tool>` and `services:execute:@<source>` scopes),
 * sorted by the names the endpoint gives them, each with its cost on the caller's plan. A list
 * depends on the catalog, the plan and the scopes only, so it is made once for each.
 */
@Injectable()
export class McpToolList {
  private readonly cache = new Map<string, { tools: Tool[] }>();
  /** The registry's changes the cached lists were made at (a source's tools come and go). */
  private madeAt = -1;

  constructor(
    private readonly registry: ToolRegistry,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  forCaller(
    caller: Pick<Caller, 'plan' | 'scopes'> | undefined,
    catalog: McpCatalog,
  ): { tools: Tool[] } {
    const plan = caller?.plan ?? this.settings.defaultPlan;
    const scopes = caller?.scopes ?? ['services:execute'];
    const at = `${catalog.source ?? ''} ${plan} ${scopes.join(' ')}`;
    if (this.madeAt !== this.registry.changes()) {
      this.cache.clear();
      this.madeAt = this.registry.changes();
    }
    let listed = this.cache.get(at);
    if (!listed) {
      listed = {
        tools: this.registry
          .list()
          .flatMap((tool) => {
            const name = catalog.nameOf(tool);
            return name !== undefined && hasAnyScope(scopes, toolScopes(tool))
              ? [{ tool, name }]
              : [];
          })
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
          .map(({ tool, name }) =>
            describeTool(tool, name, toolCost(this.settings, plan, tool.name, tool.runtime.cost)),
          ),
      };
      if (this.cache.size >= MAX_CACHED_LISTS)
        this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(at, listed);
    }
    return listed;
  }
}
