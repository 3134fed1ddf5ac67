import type { AuditActor } from '../audit/audit.context';
import type { Caller } from '../auth/caller';

/**
 * What a tool's handler gets beside its input: who calls (a key or an OAuth principal), and, as an audit
 * actor, whom the audit trail names (a handler that audits passes the context on as it is).
 */
export interface ToolContext extends AuditActor {
  /** The key, or the OAuth principal, the call is made for. */
  caller: Caller;
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
