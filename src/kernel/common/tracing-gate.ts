import { context, trace } from '@opentelemetry/api';

/**
 * Whether this process traces (here in the kernel, for the SQLite store's spans; the tracing
 * feature, src/tracing, is the rest), from the standard OpenTelemetry variables alone
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

/** Decided once, when the process starts: the SDK is started then or never. */
export const tracingOn = tracingRequested(process.env);

/**
 * Whether the work at hand runs in a span that records. A span's children are made only then: a
 * child of a span left out by the sampler would be left out too, and making it costs the context's
 * switch and a span object for nothing; and work of no call (start-up, a sweep) would make a trace
 * of one span each.
 */
export function inRecordingSpan(): boolean {
  return trace.getSpan(context.active())?.isRecording() === true;
}
