import type { AuditActor } from '../audit';
import type { Caller } from '../subjects';

/**
 * Reports how far a call has come: `done` of `total` (when known), with a short message. Values
 * that do not move forward are ignored (MCP asks progress to increase); over MCP each report is a
 * `notifications/progress` to a client that asked for it, on a long-running call it is the
 * invocation's `progress`.
 */
export type ProgressReporter = (done: number, total?: number, message?: string) => void;

/**
 * What a tool's handler gets beside its input: who calls (a key or an OAuth principal), and, as an audit
 * actor, whom the audit trail names (a handler that audits passes the context on as it is); the
 * call's `signal`, aborted when its deadline passes, its client goes away or it is cancelled
 * (pass it to `fetch` and the like: the work stops with the call); and `progress`.
 */
export interface ToolContext extends AuditActor {
  /** The key, or the OAuth principal, the call is made for. */
  caller: Caller;
  /**
   * Aborted when the call should stop: its deadline passed (its reason a `TimeoutError`), its
   * client went away, it was cancelled, or the instance is shutting down (an `AbortError`).
   */
  signal: AbortSignal;
  progress: ProgressReporter;
}

/**
 * Serves the REST route of a tool (`POST /api/v1/services/<name>`): the call through the one
 * pipeline, the tool, its answer. The routes @ToolController() makes call it; the invocation
 * module provides it (ToolInvoker's REST side), so that tools stand below it in the floors.
 */
export abstract class ToolRunner {
  /** The tool's answer body for `req`, or a thrown refusal; the answer's headers set on `res`. */
  abstract serve(tool: string, req: object, res: object): Promise<unknown>;
}
