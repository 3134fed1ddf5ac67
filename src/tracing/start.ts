import { tracingOn } from '../kernel/common/tracing-gate';

/**
 * Imported by the entry points before anything else that the SDK instruments (node:http,
 * ioredis): the SDK patches modules as they are loaded, not those loaded before it. Off, the SDK
 * is never loaded.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing is on
const started = tracingOn ? (require('./sdk') as typeof import('./sdk')) : undefined;

/** Flushes and stops the SDK (a no-op when tracing is off). */
export async function stopTracing(): Promise<void> {
  await started?.shutdownTracing();
}
