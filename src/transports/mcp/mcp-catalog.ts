import { Injectable } from '@nestjs/common';
import {
  SourceExtras,
  SourcesService,
  type PassedMethod,
  type UpstreamExtras,
} from '../../sources';
import { RegisteredTool, ToolRegistry } from '../../tools/index';

/** The name MCP clients see (serverInfo) on /mcp. */
export const SERVER_NAME = 'tool-invocation-service';

/**
 * The tools one MCP endpoint serves, a view over the registry: on `/mcp` every tool under its own
 * name; on `/mcp/sources/<source>` that source's tools alone, under the upstream's own names (the
 * virtual server an agent configured for the upstream needs no renames for). Whatever a call is
 * named here, it runs as the registered tool: its scopes, credits, ledger entry and deadline.
 */
export interface McpCatalog {
  /** `serverInfo.name`: the service's, or the source's. */
  readonly serverName: string;
  /** The source served alone; undefined on /mcp. */
  readonly source?: string;
  /** The registered tool a name of this endpoint stands for. */
  tool(name: string): RegisteredTool | undefined;
  /** Whether the endpoint serves the tool, and under which name. */
  nameOf(tool: RegisteredTool): string | undefined;
  /**
   * What the source's upstream serves beside its tools (resources, prompts, completions), passed
   * on as it came: a source's endpoint only.
   */
  readonly extras?: {
    served(): UpstreamExtras | undefined;
    forward(
      method: PassedMethod,
      params: Record<string, unknown>,
      signal: AbortSignal,
    ): Promise<Record<string, unknown>>;
  };
}

const NO_TOOLS: ReadonlyMap<string, RegisteredTool> = new Map<string, RegisteredTool>();

/** The catalogs of the MCP endpoints: the whole registry, and each source's. */
@Injectable()
export class McpCatalogs {
  readonly all: McpCatalog;
  /** Each source's tools by their upstream names, made again when the registry changes. */
  private bySource = new Map<string, Map<string, RegisteredTool>>();
  private madeAt = -1;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly sources: SourcesService,
    private readonly extras: SourceExtras,
  ) {
    this.all = {
      serverName: SERVER_NAME,
      tool: (name) => registry.get(name),
      nameOf: (tool) => tool.name,
    };
  }

  /** The catalog of a source this instance runs (ready or not), or undefined. */
  ofSource(source: string): McpCatalog | undefined {
    if (!this.sources.get(source)) return undefined;
    return {
      serverName: source,
      source,
      tool: (name) => this.toolsOf(source).get(name),
      nameOf: (tool) => (tool.source === source ? tool.upstreamName : undefined),
      extras: {
        served: () => this.extras.servedBy(source),
        forward: (method, params, signal) => this.extras.forward(source, method, params, signal),
      },
    };
  }

  private toolsOf(source: string): ReadonlyMap<string, RegisteredTool> {
    if (this.madeAt !== this.registry.changes()) {
      this.bySource = new Map();
      for (const tool of this.registry.list()) {
        if (tool.source === undefined || tool.upstreamName === undefined) continue;
        let tools = this.bySource.get(tool.source);
        if (!tools) this.bySource.set(tool.source, (tools = new Map<string, RegisteredTool>()));
        tools.set(tool.upstreamName, tool);
      }
      this.madeAt = this.registry.changes();
    }
    return this.bySource.get(source) ?? NO_TOOLS;
  }
}
