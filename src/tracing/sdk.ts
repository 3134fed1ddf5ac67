import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';

/** Paths whose calls are not traced: probes and scrapes, many a minute, telling nothing of a call. */
const UNTRACED_PATHS = new Set(['/health', '/health/live', '/health/ready', '/metrics']);

/**
 * The OpenTelemetry SDK for Node, configured by the standard variables it reads itself
 * (exporter, endpoint, protocol, service name, resource attributes, sampler): traces only (no
 * metrics or logs exporters), HTTP server spans (both adapters run on node:http), Redis commands
 * by name only (their keys hold hashes of secrets), calls out by fetch with their query strings
 * left out and `traceparent` injected.
 */
const sdk = new NodeSDK({
  metricReaders: [],
  logRecordProcessors: [],
  instrumentations: [
    new HttpInstrumentation({
      // The calls out are fetch's (undici's), traced below.
      disableOutgoingRequestInstrumentation: true,
      ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]),
    }),
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
