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
import { inRecordingSpan, tracingOn } from '../kernel/common/tracing-gate';

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
  /** `jsonrpc.request.id`, for a request (a notification has none). */
  id?: string | number;
  /** `mcp.protocol.version`: 2026-07-28, or the 2025 revision spoken (2025-06-18, ...). */
  protocolVersion: string;
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
        'mcp.protocol.version': facts.protocolVersion,
        'network.transport': facts.network,
        ...(facts.id === undefined ? {} : { 'jsonrpc.request.id': String(facts.id) }),
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
  /** The call's arguments: recorded only with `OTEL_TIS_CAPTURE_ARGUMENTS=true`. */
  input: object;
}

/** Tool arguments and results leave the process only when the operator says so. */
const captureArguments =
  (process.env.OTEL_TIS_CAPTURE_ARGUMENTS ?? '').trim().toLowerCase() === 'true';

/** A value as an attribute: its JSON (a value JSON cannot write, its type). */
function asAttribute(value: unknown): string {
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/**
 * Runs a tool's handler in an INTERNAL span `execute_tool {tool}` (when its call is recorded):
 * who called (the kind and id of the key or principal, never a secret), what it costs, and how it
 * ended (`tis.outcome`). Its arguments only when the operator opts in
 * (`OTEL_TIS_CAPTURE_ARGUMENTS=true`).
 */
export async function inToolSpan<T>(facts: ToolRunFacts, run: () => Promise<T>): Promise<T> {
  if (!inRecordingSpan()) return run();
  const span = tracer.startSpan(`execute_tool ${facts.tool}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': facts.tool,
      'tis.caller.kind': facts.callerKind,
      'tis.caller.id': facts.callerId,
      'tis.tool.cost': facts.cost,
      ...(captureArguments ? { 'gen_ai.tool.call.arguments': asAttribute(facts.input) } : {}),
    },
  });
  try {
    const result = await context.with(trace.setSpan(context.active(), span), run);
    span.setAttribute('tis.outcome', 'success');
    if (captureArguments) span.setAttribute('gen_ai.tool.call.result', asAttribute(result));
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

/** A call run in the background, as its span describes it: its tool and who started it. */
export interface BackgroundRunFacts {
  tool: { name: string };
  actor: { caller: { kind: string; id: string } };
}

/**
 * Runs a call accepted for the background (a REST 202, an MCP task) in a span `background_run
 * {tool}` of a trace of its own, linked to the span of the request that accepted it: that request
 * has answered long before the call ends. The tool's own span is its child.
 */
export async function inBackgroundSpan<T>(
  invocationId: string,
  { tool, actor }: BackgroundRunFacts,
  run: () => Promise<T>,
): Promise<T> {
  const accepting = trace.getSpan(context.active());
  const span = tracer.startSpan(
    `background_run ${tool.name}`,
    {
      kind: SpanKind.INTERNAL,
      links: accepting ? [{ context: accepting.spanContext() }] : [],
      attributes: {
        'gen_ai.tool.name': tool.name,
        'tis.invocation.id': invocationId,
        'tis.caller.kind': actor.caller.kind,
        'tis.caller.id': actor.caller.id,
      },
    },
    ROOT_CONTEXT,
  );
  try {
    return await context.with(trace.setSpan(ROOT_CONTEXT, span), run);
  } finally {
    span.end();
  }
}

/**
 * A method run in an INTERNAL span of that name when tracing is on and its call is recorded: a
 * step of a call that waits on I/O (authentication, the rate and credit counts, the
 * Idempotency-Key), whose store calls are its children. Off, the method is left as written:
 * decided once, when its class is defined.
 */
export function Traced(name: string): MethodDecorator {
  return (_target, _key, descriptor) => {
    if (!tracingOn) return;
    const method = descriptor.value as unknown as (...args: unknown[]) => Promise<unknown>;
    const traced = async function (this: unknown, ...args: unknown[]): Promise<unknown> {
      if (!inRecordingSpan()) return method.apply(this, args);
      const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL });
      try {
        return await context.with(trace.setSpan(context.active(), span), () =>
          method.apply(this, args),
        );
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        const status = (error as { getStatus?: () => number }).getStatus?.();
        span.setAttribute('error.type', status === undefined ? '_OTHER' : String(status));
        throw error;
      } finally {
        span.end();
      }
    };
    descriptor.value = traced as unknown as typeof descriptor.value;
  };
}
