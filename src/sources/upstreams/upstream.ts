/** One tool as an upstream describes it (MCP's Tool shape; an OpenAPI operation is mapped to it). */
export interface UpstreamTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** What an upstream lists: the tools it can serve, and those left out with the reason (shown in last_error). */
export interface UpstreamToolList {
  tools: UpstreamTool[];
  omitted: { name: string; reason: string }[];
}

export interface UpstreamCallOptions {
  signal: AbortSignal; // the deadline and the caller's cancel
  traceparent?: string; // passed on (MCP _meta / HTTP header)
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
}

/** An MCP upstream's result, or an OpenAPI upstream's JSON answer. */
export type UpstreamResult =
  | { kind: 'mcp'; result: { content: unknown[]; structuredContent?: unknown; isError: boolean } }
  | { kind: 'json'; status: number; body: unknown };

/** A failure the caller sees as 503 (unavailable: not charged) or 502 (the upstream answered badly). */
export class UpstreamError extends Error {
  constructor(
    readonly reason: 'unavailable' | 'status' | 'too_large' | 'protocol',
    message: string, // the {detail}, already in the contract's words, naming the source
    readonly retryAfterSeconds?: number,
    readonly status?: number, // the upstream's HTTP status, for 'status'
  ) {
    super(message);
  }
}

/**
 * The methods of an MCP upstream beside its tools that its source's own endpoint passes through
 * (resources, prompts, completions: reads, never charged), one request for one.
 */
export const PASSED_METHODS = [
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
] as const;
export type PassedMethod = (typeof PASSED_METHODS)[number];

/** Which of those an upstream serves, as its capabilities said when it was last connected. */
export interface UpstreamExtras {
  resources: boolean;
  prompts: boolean;
  completions: boolean;
  logging: boolean;
}

export interface Upstream {
  /** Connects (or reads the document) and lists the tools; throws UpstreamError('unavailable') when it cannot. */
  listTools(): Promise<UpstreamToolList>;
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: UpstreamCallOptions,
  ): Promise<UpstreamResult>;
  /** What it serves beside tools (an MCP upstream's, once connected); undefined: nothing. */
  extras?(): UpstreamExtras | undefined;
  /** One request of PASSED_METHODS sent on as it came; its result as the upstream answered. */
  forward?(
    method: PassedMethod,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>>;
  /** Called when the upstream says its tools changed (MCP notifications/tools/list_changed). */
  onToolsChanged?(listener: () => void): void;
  close(): Promise<void>;
}
