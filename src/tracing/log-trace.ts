import { context, isSpanContextValid, trace } from '@opentelemetry/api';

/** The ids of the span a log line is written in, for pino's `mixin`: none outside a traced call. */
export function traceFields(): Record<string, string> {
  const span = trace.getSpan(context.active())?.spanContext();
  if (!span || !isSpanContextValid(span)) return {};
  return {
    trace_id: span.traceId,
    span_id: span.spanId,
    trace_flags: `0${span.traceFlags.toString(16)}`,
  };
}
