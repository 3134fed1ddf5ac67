import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';

/**
 * The OpenTelemetry SDK for Node, configured by the standard variables it reads itself
 * (exporter, endpoint, protocol, service name, resource attributes, sampler): traces only (no
 * metrics or logs exporters), Redis commands by name only (their keys hold hashes of secrets),
 * calls out by fetch with their query strings left out and `traceparent` injected. The HTTP server
 * span is each adapter's (src/kernel/http/server-span.ts).
 */
const sdk = new NodeSDK({
  metricReaders: [],
  logRecordProcessors: [],
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
sdk.start();

/** Exports what is still buffered, then stops: once the process has answered its last call. */
export function shutdownTracing(): Promise<void> {
  return sdk.shutdown();
}
