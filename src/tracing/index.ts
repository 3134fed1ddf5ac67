/**
 * The tracing feature's public entry (docs/observability.md). The entry points import it first,
 * for its effect: `./start` starts the OpenTelemetry SDK when the environment asks for it and
 * installs the recording spans in the seam, before anything it instruments is loaded (so it is
 * exported first).
 */
export { stopTracing } from './start';
export { tracingRequested } from '../kernel/common/tracing-gate';
export { spans } from '../kernel/common/tracing-gate';
export { TracingModule } from './tracing.module';
export { Traced } from './traced';
export type {
  BackgroundRunFacts,
  McpRequestFacts,
  ToolRunFacts,
} from '../kernel/common/tracing-gate';
