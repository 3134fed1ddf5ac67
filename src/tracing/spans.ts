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
import type {
  BackgroundRunFacts,
  McpRequestFacts,
  ToolRunFacts,
} from '../kernel/common/tracing-gate';
import { inRecordingSpan } from '../kernel/common/tracing-gate';

const tracer = trace.getTracer('tool-invocation-service');

/** Reads W3C trace context from an MCP request's `_meta`: only its string values. */
const META_GETTER: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/**
 * Runs an MCP request in a SERVER span named `{method} {tool}`: its parent is the trace context in
 * the request's `_meta` when it has one (then linked to the HTTP request's span), else the span
 * around it. A result with `isError` sets `error.type = tool_error`; a thrown error, its JSON-RPC
 * code (or `_OTHER`).
 */
export async function inMcpSpan<T>(
  factsOf: () => McpRequestFacts,
  run: () => Promise<T>,
): Promise<T> {
  const facts = factsOf();
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
 * A method run in an INTERNAL span of that name when its call is recorded and `when` (if given)
 * says so for its arguments: a step of a call that waits on I/O (authentication, the rate and
 * credit counts, the Idempotency-Key), whose store calls are its children.
 */
export function recordingDecorate(
  name: string,
  when: ((...args: never[]) => boolean) | undefined,
  descriptor: PropertyDescriptor,
): void {
  const method = descriptor.value as (...args: unknown[]) => Promise<unknown>;
  const asks = when as ((...args: unknown[]) => boolean) | undefined;
  descriptor.value = async function (this: unknown, ...args: unknown[]): Promise<unknown> {
    if (!inRecordingSpan() || (asks && !asks(...args))) return method.apply(this, args);
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
}

/** Messages answered together inside `run`: a span each, side by side, each as long as the whole. */
export async function inMcpSpans(
  factsOf: () => McpRequestFacts[],
  run: () => Promise<void>,
): Promise<void> {
  const facts = factsOf();
  if (facts.length === 0) return run();
  const done = run();
  await Promise.all(
    facts.map((message) =>
      inMcpSpan(
        () => message,
        () => done,
      ),
    ),
  );
}
