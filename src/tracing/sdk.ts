import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  getNumberFromEnv,
  getStringFromEnv,
  getStringListFromEnv,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, detectResources, envDetector } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  type Sampler,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

/**
 * The trace SDK at its lightest (docs/decisions.md, "Tracing"): OpenTelemetry's tracer provider,
 * its batch span processor and the OTLP/HTTP exporter, set up from the standard variables
 * (exporter, protocol, sampler, the batch's delays and sizes, service name and resource
 * attributes; the exporter reads its endpoint, headers and timeout itself). Two instrumentations
 * of what the service does not trace itself: Redis commands by name only (their keys hold hashes
 * of secrets), and calls out by fetch with their query strings left out and `traceparent`
 * injected. Everything else is the service's own spans (src/tracing/spans.ts, the kernel's).
 */

/** `OTEL_TRACES_SAMPLER` and its argument, as the SDK specification names them. */
function samplerOf(): Sampler {
  const name = getStringFromEnv('OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on';
  const ratio = () =>
    new TraceIdRatioBasedSampler(getNumberFromEnv('OTEL_TRACES_SAMPLER_ARG') ?? 1);
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** The processors of `OTEL_TRACES_EXPORTER` (`otlp` by default; `console` writes each span). */
function processorsOf(): SpanProcessor[] {
  const names = getStringListFromEnv('OTEL_TRACES_EXPORTER') ?? ['otlp'];
  const protocol =
    getStringFromEnv('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ??
    getStringFromEnv('OTEL_EXPORTER_OTLP_PROTOCOL') ??
    'http/protobuf';
  const processors: SpanProcessor[] = [];
  for (const name of names.length ? names : ['otlp']) {
    if (name === 'console') {
      processors.push(new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() }));
    } else if (name === 'otlp') {
      const exporter: SpanExporter =
        protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtoExporter();
      processors.push(
        new BatchSpanProcessor({
          exporter,
          scheduledDelayMillis: getNumberFromEnv('OTEL_BSP_SCHEDULE_DELAY'),
          exportTimeoutMillis: getNumberFromEnv('OTEL_BSP_EXPORT_TIMEOUT'),
          maxQueueSize: getNumberFromEnv('OTEL_BSP_MAX_QUEUE_SIZE'),
          maxExportBatchSize: getNumberFromEnv('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
        }),
      );
    }
  }
  return processors;
}

const provider = new TracerProvider({
  resource: defaultResource().merge(detectResources({ detectors: [envDetector] })),
  sampler: samplerOf(),
  spanProcessors: processorsOf(),
});
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(
  new CompositePropagator({
    propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
  }),
);
trace.setGlobalTracerProvider(provider);
registerInstrumentations({
  tracerProvider: provider,
  instrumentations: [
    new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
    new UndiciInstrumentation({
      startSpanHook: ({ origin, path }) => {
        const url = new URL(path, origin);
        return { 'url.full': `${url.origin}${url.pathname}`, 'url.query': '' };
      },
    }),
  ],
});

/** Exports what is still buffered, then stops: once the process has answered its last call. */
export function shutdownTracing(): Promise<void> {
  return provider.shutdown();
}
