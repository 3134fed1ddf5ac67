import { DiscoveryService } from '@nestjs/core';
import type { AuthenticatedKey } from '../auth/authenticated-key';

/** How an invocation arrived: an HTTP route (REST, and the /mcp POST itself), or an MCP tools/call. */
export type Transport = 'rest' | 'mcp-http' | 'mcp-stdio';

/**
 * One call of a route or a tool as every step of the pipeline sees it, whatever its transport.
 * Steps read it, and fill in `key` (authentication) and `headers` (what the answer carries).
 */
export interface Invocation {
  transport: Transport;
  /** Every `Authorization` value as received (stdio: its key as a bearer value). */
  authorization: readonly string[];
  /** Whose failed authentications count together: the client's address. */
  client: string;
  /** The HTTP request's id (REST, MCP over HTTP), for the audit trail and the logs. */
  requestId?: string;
  /** The scopes the route asks for, any one of which suffices; undefined: any valid key. */
  scopes?: readonly string[];
  /** The tool called; undefined for other routes. A tool call counts against the daily quota. */
  tool?: string;
  /** 401 and 403 carry RFC 6750 error codes (`error="invalid_token"`): MCP clients read them. */
  bearerErrorCodes: boolean;
  /** Already counted against the key's rate limit by its transport (each JSON-RPC request of /mcp). */
  rateCounted: boolean;
  /** Set by authentication; given up front when the transport already authenticated the caller. */
  key?: AuthenticatedKey;
  /**
   * Set by authentication when `key` may come from a copy of its record kept between calls (a
   * shared store's, see RedisStore.findKeyByHash): the rate step's count checks it, and a 403
   * made on it is made again on the record itself (see InvocationPipeline.check).
   */
  keyKept?: boolean;
  /** Authentication reads the key's record itself, never a kept copy: the pipeline's second run. */
  freshKey?: boolean;
  /** Counted against the daily quota already, with the rate budget (see RateLimitStep). */
  quotaCounted?: boolean;
  /** Headers the answer carries, success or not: X-RateLimit-*, X-Quota-*. */
  headers: Record<string, string | number>;
  /** A tool call's body (MCP: its arguments), for the idempotency step's fingerprint. */
  body?: unknown;
  /** The client's Idempotency-Key as received (REST header, MCP `_meta`); undefined: none. */
  idempotencyKey?: unknown;
  /**
   * Set by the idempotency step when this call's answer is to be kept: the transport calls it once
   * with the status and body it answers (REST: the @Tool handler's wrapper or the exception filter).
   */
  keepAnswer?: (status: number, body: unknown, ran?: boolean) => Promise<void>;
  /** Work to undo when a later step refuses the invocation (a claim the quota then refuses). */
  onRefused?: (() => Promise<void>)[];
}

/**
 * One check of the pipeline: returns (or resolves) to let the invocation through, throws (or
 * rejects with) an ApiError to refuse it. A check with nothing to wait for returns at once: the
 * pipeline waits only for the promises it is given.
 */
export interface InvocationStep {
  run(invocation: Invocation): Promise<void> | void;
}

/**
 * Marks a provider as a step of the invocation pipeline, run in `order` on every keyed route and
 * tool call, over REST and both MCP transports. A module adds a check by declaring such a provider.
 */
export const PipelineStep = DiscoveryService.createDecorator<{ order: number }>();

/**
 * The contract's order of a call: authentication, scope, rate limit, idempotency (replay, 409,
 * 422), daily quota; then validation, the tool, metering, and the kept answer.
 */
export const STEP_ORDER = {
  authenticate: 100,
  scope: 200,
  rateLimit: 300,
  idempotency: 400,
  quota: 500,
} as const;

/** The authenticated key of an invocation; the steps after authentication rely on it. */
export function keyOf(invocation: Invocation): AuthenticatedKey {
  if (!invocation.key) throw new Error('Invocation step ran before authentication');
  return invocation.key;
}
