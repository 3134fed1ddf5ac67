/**
 * The tracing feature's public entry (docs/observability.md). The entry points import it first,
 * for its effect: `./start` starts the OpenTelemetry SDK when the environment asks for it, before
 * anything it instruments is loaded (so it is exported first).
 */
export { stopTracing } from './start';
export { tracingOn, tracingRequested } from '../kernel/common/tracing-gate';
export { traceFields } from './log-trace';
export { TracingModule } from './tracing.module';
export { inBackgroundSpan, inMcpSpan, inToolSpan, Traced } from './spans';
export type { BackgroundRunFacts, McpRequestFacts, ToolRunFacts } from './spans';
