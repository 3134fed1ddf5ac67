import { context, ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api';
import type Database from 'better-sqlite3';
import type { IncomingMessage } from 'node:http';

/**
 * Whether this process traces, from the standard OpenTelemetry variables alone
 * (docs/observability.md): on when `OTEL_TRACES_EXPORTER` names an exporter other than `none`, or
 * an OTLP endpoint is set; `OTEL_SDK_DISABLED=true` wins. Off, nothing of the SDK is loaded (the
 * API alone is, whose calls are then no-ops).
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (exporters.length > 0) return exporters.some((name) => name !== 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** Decided once, when the process starts: the SDK is started then or never (src/tracing/start.ts). */
export const tracingOn = tracingRequested(process.env);

/** `OTEL_TIS_SPAN_DETAIL`: `calls` (the default: statements as events) or `statements`. */
export type SpanDetail = 'calls' | 'statements';

/** The detail the environment asks for; anything else than `statements` is `calls`. */
export function spanDetailOf(env: NodeJS.ProcessEnv): SpanDetail {
  return (env.OTEL_TIS_SPAN_DETAIL ?? '').trim().toLowerCase() === 'statements'
    ? 'statements'
    : 'calls';
}

/**
 * Whether the work at hand runs in a span that records. A span's children are made only then: a
 * child of a span left out by the sampler would be left out too, and making it costs the context's
 * switch and a span object for nothing; and work of no call (start-up, a sweep) would make a trace
 * of one span each.
 */
export function inRecordingSpan(): boolean {
  return trace.getSpan(context.active())?.isRecording() === true;
}

/** One MCP request as its span describes it (the MCP semantic conventions of OpenTelemetry). */
export interface McpRequestFacts {
  method: string;
  /** The tool (or prompt) it names, for the span's name and `gen_ai.tool.name`. */
  tool?: string;
  /** `jsonrpc.request.id`, for a request (a notification has none). */
  id?: string | number;
  /** `mcp.protocol.version`: 2026-07-28, or the 2025 revision spoken (2025-06-18, ...). */
  protocolVersion: string;
  /** `network.transport`: `tcp` over HTTP, `pipe` over stdio. */
  network: 'tcp' | 'pipe';
  /** The request's `_meta`: `traceparent`, `tracestate`, `baggage` continue the client's trace. */
  meta?: Record<string, unknown>;
}

/** A tool's run as its span describes it: never its arguments or result. */
export interface ToolRunFacts {
  tool: string;
  callerKind: string;
  callerId: string;
  cost: number;
  /** The call's arguments: recorded only with `OTEL_TIS_CAPTURE_ARGUMENTS=true`. */
  input: object;
}

/** A call run in the background, as its span describes it: its tool and who started it. */
export interface BackgroundRunFacts {
  tool: { name: string };
  actor: { caller: { kind: string; id: string } };
}

/** A request's HTTP span, as an adapter holds it from its first hook to its answer. */
export interface RequestSpan {
  /** Runs the rest of the request (the adapter's next step) in the span's context. */
  within(next: () => void): void;
  /** Ends the span once the answer has gone out, named by the route that matched. */
  end(answer: { route: string; status: number }): void;
}

/**
 * Everything the hot path asks of tracing, in one seam: the code of a call calls these and never
 * asks whether tracing is on. Off (UNTRACED), each is the plain form (the work run as it is, the
 * connection as it is, no span); on, src/tracing/start.ts installs the recording ones once, before
 * the service's modules are loaded, so that a decorator applied when its class is defined sees
 * them too.
 */
export interface Spans {
  /** A request's SERVER span (undefined for a probe's path, or off). */
  request(req: IncomingMessage): RequestSpan | undefined;
  /** An MCP message's SERVER span around its answer (its facts read only when it has one). */
  mcp<T>(facts: () => McpRequestFacts, run: () => Promise<T>): Promise<T>;
  /**
   * Messages answered together inside `run` (those the MCP SDK answers itself): a SERVER span each,
   * side by side, each as long as the whole.
   */
  mcpEach(facts: () => McpRequestFacts[], run: () => Promise<void>): Promise<void>;
  /** The tool's `execute_tool` span. */
  tool<T>(facts: ToolRunFacts, run: () => Promise<T>): Promise<T>;
  /** A background call's `background_run` span, in a trace of its own. */
  background<T>(invocationId: string, facts: BackgroundRunFacts, run: () => Promise<T>): Promise<T>;
  /**
   * A method's span (a check that waits on I/O), made when `when` (if given) says so for its
   * arguments: rewrites the method's descriptor, once, when its class is defined.
   */
  decorate(
    name: string,
    when: ((...args: never[]) => boolean) | undefined,
    d: PropertyDescriptor,
  ): void;
  /** An SQLite connection whose statements are events (or spans) of the span they run in. */
  connection(db: Database.Database): Database.Database;
  /** The context a write is asked for in, for its span when it runs later (a group commit). */
  capture(): Context | undefined;
  /** A write of a group commit, in its CLIENT span, in the context it was asked for in. */
  write<T>(asked: Context | undefined, run: () => T): T;
  /** Work of no call (a write sent and not waited for): no span of the call it starts in. */
  detached<T>(run: () => T): T;
  /** The ids of the span a log line is written in, for pino's `mixin` (undefined: no mixin). */
  logFields: (() => Record<string, string>) | undefined;
}

/** The plain forms: what the hot path runs with tracing off. */
export const UNTRACED: Spans = {
  request: () => undefined,
  mcp: (_facts, run) => run(),
  mcpEach: (_facts, run) => run(),
  tool: (_facts, run) => run(),
  background: (_id, _facts, run) => run(),
  decorate: () => undefined,
  connection: (db) => db,
  capture: () => undefined,
  write: (_asked, run) => run(),
  detached: (run) => run(),
  logFields: undefined,
};

/** The seam: UNTRACED until src/tracing/start.ts installs the recording spans. */
export let spans: Spans = UNTRACED;

/** Installs the recording spans (src/tracing/start.ts, once, before the service's modules load). */
export function installSpans(recording: Spans): void {
  spans = recording;
}

/** Runs `run` outside any span: work that belongs to no call. */
export function outsideSpans<T>(run: () => T): T {
  return context.with(ROOT_CONTEXT, run);
}
