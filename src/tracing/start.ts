import { installSpans, spanDetailOf, tracingOn } from '../kernel/common/tracing-gate';
import { ServerSpan } from '../kernel/http/server-span';
import { recordingConnection, recordingWrite } from '../kernel/store/sqlite/sqlite-spans';
import { traceFields } from './log-trace';
import { inBackgroundSpan, inMcpSpan, inMcpSpans, inToolSpan, recordingDecorate } from './spans';
import { context, ROOT_CONTEXT as ROOT } from '@opentelemetry/api';

/**
 * Imported by the entry points before anything else that the SDK instruments (ioredis, undici)
 * and before the service's modules (their decorators read the seam when their classes are
 * defined): the one place the tracing switch is read. On, the SDK starts and the recording spans
 * are installed in the seam (`spans`, src/kernel/common/tracing-gate.ts); off, the SDK is never
 * loaded and the seam keeps its plain forms.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing is on
const started = tracingOn ? (require('./sdk') as typeof import('./sdk')) : undefined;
if (started) {
  const detail = spanDetailOf(process.env);
  installSpans({
    request: (req) => ServerSpan.start(req),
    mcp: inMcpSpan,
    mcpEach: inMcpSpans,
    tool: inToolSpan,
    background: inBackgroundSpan,
    decorate: recordingDecorate,
    connection: (db) => recordingConnection(db, detail),
    capture: () => context.active(),
    write: recordingWrite,
    detached: (run) => context.with(ROOT, run),
    logFields: traceFields,
  });
}

/** Flushes and stops the SDK (a no-op when tracing is off). */
export async function stopTracing(): Promise<void> {
  await started?.shutdownTracing();
}
