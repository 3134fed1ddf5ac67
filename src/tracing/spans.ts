import {
  Context,
  context,
  Link,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TextMapGetter,
  trace,
} from '@opentelemetry/api';

const tracer = trace.getTracer('tool-invocation-service');

/** Reads W3C trace context from an MCP request's `_meta`: only its string values. */
const META_GETTER: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/** One MCP request as its span describes it (the MCP semantic conventions of OpenTelemetry). */
export interface McpRequestFacts {
  method: string;
  /** The tool (or prompt) it names, for the span's name and `gen_ai.tool.name`. */
  tool?: string;
  /** `mcp.protocol.version`: 2026-07-28, or the 2025 revision spoken. */
  revision: string;
  /** `network.transport`: `tcp` over HTTP, `pipe` over stdio. */
  network: 'tcp' | 'pipe';
  /** The request's `_meta`: `traceparent`, `tracestate`, `baggage` continue the client's trace. */
  meta?: Record<string, unknown>;
}

/**
 * Runs an MCP request in a SERVER span named `{method} {tool}`: its parent is the trace context in
 * the request's `_meta` when it has one (then linked to the HTTP request's span), else the span
 * around it. A result with `isError` sets `error.type = tool_error`; a thrown error, its JSON-RPC
 * code (or `_OTHER`).
 */
export async function inMcpSpan<T>(facts: McpRequestFacts, run: () => Promise<T>): Promise<T> {
  const ambient = context.active();
  const fromMeta: Context | undefined =
    facts.meta && typeof facts.meta.traceparent === 'string'
      ? propagation.extract(ROOT_CONTEXT, facts.meta, META_GETTER)
      : undefined;
  const parent = fromMeta && trace.getSpan(fromMeta) ? fromMeta : ambient;
  const around = trace.getSpan(ambient);
  const links: Link[] = parent !== ambient && around ? [{ context: around.spanContext() }] : [];
  const span = tracer.startSpan(
    facts.tool === undefined ? facts.method : `${facts.method} ${facts.tool}`,
    {
      kind: SpanKind.SERVER,
      links,
      attributes: {
        'mcp.method.name': facts.method,
        'mcp.protocol.version': facts.revision,
        'network.transport': facts.network,
        ...(facts.tool === undefined
          ? {}
          : { 'gen_ai.tool.name': facts.tool, 'gen_ai.operation.name': 'execute_tool' }),
      },
    },
    parent,
  );
  try {
    const result = await context.with(trace.setSpan(parent, span), run);
    if ((result as { isError?: unknown } | undefined)?.isError === true) {
      span.setAttribute('error.type', 'tool_error');
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return result;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    span.setAttribute('error.type', typeof code === 'number' ? String(code) : '_OTHER');
    if (typeof code === 'number') span.setAttribute('rpc.response.status_code', String(code));
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}

/** A tool's run as its span describes it: never its arguments or result. */
export interface ToolRunFacts {
  tool: string;
  callerKind: string;
  callerId: string;
  cost: number;
}

/**
 * Runs a tool's handler in an INTERNAL span `execute_tool {tool}`: who called (the kind and id of
 * the key or principal, never a secret), what it costs, and how it ended (`tis.outcome`).
 */
export async function inToolSpan<T>(facts: ToolRunFacts, run: () => Promise<T>): Promise<T> {
  const span = tracer.startSpan(`execute_tool ${facts.tool}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': facts.tool,
      'tis.caller.kind': facts.callerKind,
      'tis.caller.id': facts.callerId,
      'tis.tool.cost': facts.cost,
    },
  });
  try {
    const result = await context.with(trace.setSpan(context.active(), span), run);
    span.setAttribute('tis.outcome', 'success');
    return result;
  } catch (error) {
    // A call stopped at its deadline (CallStopped), or any other failure of the handler.
    const timedOut = (error as { reason?: unknown }).reason === 'deadline';
    span.setAttribute('tis.outcome', timedOut ? 'timeout' : 'error');
    span.setAttribute('error.type', timedOut ? 'timeout' : '_OTHER');
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
