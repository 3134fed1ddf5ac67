import type { RequestSpan } from '../common/tracing-gate';

/**
 * What the layers of a request write on the request object itself for the ones after them (its
 * id, the authenticated caller). It travels as the request does, by hand: no AsyncLocalStorage,
 * whose hook every promise paid on Node 20, and whose `run()` a request cost 7.8 % in the median of
 * three noisy pairs on Node 24 (docs/performance.md, "Judged again on Node 24").
 */
export interface RequestScope {
  id?: string;
  caller?: CallerRef;
  /** A tool call refused for a reason its status does not tell (its 503's), for the metrics. */
  refused?: CapacityOutcome;
  /** The messages of an MCP POST, for the metrics: each timed by the POST. */
  mcpMessages?: unknown[];
  /** The request's span, when tracing is on: ended with the answer's route and status. */
  serverSpan?: RequestSpan;
}

/**
 * Why a tool call was answered 503 without running: its tool was full (`capacity`), or its caller
 * held its fair share of the tool while others wanted it (`fair_share`).
 */
export type CapacityOutcome = 'capacity' | 'fair_share';

/** Enough of a caller to name it in a log line or an audit entry: a key or an OAuth principal. */
export interface CallerRef {
  id: string;
  kind: 'key' | 'principal';
  /** A principal's: the client its token was issued to (`client_id`, else `azp`), if it names one. */
  client_id?: string | null;
}
