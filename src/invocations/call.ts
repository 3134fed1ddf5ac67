import { DiscoveryService } from '@nestjs/core';
import type { Caller } from '../subjects';
import type { CapacityOutcome } from '../kernel/http/request-scope';
import type { ResourceName, WantedScope } from '../auth';
import type { Charge, QuotaState } from '../limits';
import type { IdempotencyEntry } from '../idempotency';
import type { Admission } from './tool-slots';

/** How a call arrived: an HTTP route (REST, and the /mcp POST itself), or an MCP tools/call. */
export type Transport = 'rest' | 'mcp-http' | 'mcp-stdio';

/**
 * One call of a route or a tool, as its transport knows it when it arrives: fixed from then on.
 * The steps of the pipeline read it and return what they decide (Decisions).
 */
export interface Call {
  transport: Transport;
  /** Every `Authorization` value as received (stdio: its key as a bearer value). */
  authorization: readonly string[];
  /** Whose failed authentications count together: the client's address. */
  client: string;
  /** The HTTP request's id (REST, MCP over HTTP), for the audit trail and the logs. */
  requestId?: string;
  /** The scopes the route or tool asks for, any one of which suffices; undefined: any valid key. */
  scopes?: readonly WantedScope[];
  /** The tool called; undefined for other routes. A tool call counts against the daily quota. */
  tool?: string;
  /** 401 and 403 carry RFC 6750 error codes (`error="invalid_token"`): MCP clients read them. */
  bearerErrorCodes: boolean;
  /**
   * The protected resource the call is made on (docs/oauth.md): `mcp` for /mcp and its tool calls,
   * `api` (the default) for every other route. An access token must be meant for it.
   */
  resource?: ResourceName;
  /** A tool call's body (MCP: its arguments), for the idempotency step's fingerprint. */
  body?: unknown;
  /** The client's Idempotency-Key as received (REST header, MCP `_meta`); undefined: none. */
  idempotencyKey?: unknown;
  /** The caller, when its transport authenticated it for this very call (an MCP POST, its first call). */
  caller?: Caller;
  /** Its rate budget already charged by its transport (every message of an MCP POST). */
  rateLimitCounted?: boolean;
  /**
   * The invocation id a tool call will run as in the background (docs/long-running-calls.md),
   * decided by its transport before the pipeline: its caller's budget of kept answers must have
   * room for its result (ResultRoomStep).
   */
  background?: string;
}

/** What the steps of the pipeline decided about a call, each its own part. */
export interface Decisions {
  /** Who calls (authentication). */
  caller?: Caller;
  /**
   * The caller came from a copy of its key's record kept between calls (a shared store's, see
   * RedisKeyStore.findKeyByHash): a 403 made on it is made again on the record itself.
   */
  callerFromCache?: boolean;
  /** What the call was charged so far (the rate step; the quota step adds to it). */
  charge?: Charge;
  /** The call's idempotency claim, whose answer is kept once the tool has run. */
  claim?: IdempotencyEntry;
  /**
   * The tool call's place at its tool (admission): a slot or a place in its queue, taken before
   * the call is charged its quota and given back on any refusal; none: `noPlace` says why.
   */
  ticket?: Admission;
  /** Why admission found the tool call no place: the tool is full, or its caller has its share. */
  noPlace?: CapacityOutcome;
  /** Headers the answer carries, success or not: X-RateLimit-*, X-Quota-*. */
  headers: Record<string, string | number>;
}

/**
 * What the answer to a call carries, refused or not, as the pipeline learns it: its headers, and
 * who called (for the request's log line), once authenticated.
 */
export interface CallResponse {
  headers: Record<string, string | number>;
  caller?: Caller;
  /** Where the caller stands after the call was charged its credits (a tool call counted). */
  quota?: QuotaState;
}

/** What a step returns: its part of the decisions (headers are added to those before), or nothing. */
export type StepDecision = Partial<Decisions> | void;

/**
 * One check of the pipeline: returns (or resolves to) what it decided to let the call through,
 * throws (or rejects with) an ApiError to refuse it. A step with nothing to wait for returns at
 * once: the pipeline waits only for the promises it is given. `fresh`: authentication reads the
 * key's record itself, not a copy kept between calls (the pipeline's second attempt).
 */
export interface InvocationStep {
  run(
    call: Call,
    decided: Readonly<Decisions>,
    attempt: { fresh: boolean },
  ): Promise<StepDecision> | StepDecision;
}

/**
 * Marks a provider as a step of the invocation pipeline, run in `order` on every keyed route and
 * tool call, over REST and both MCP transports. A module adds a check by declaring such a provider.
 */
export const PipelineStep = DiscoveryService.createDecorator<{ order: number }>();

/**
 * The contract's order of a call: authentication, scope, rate limit, idempotency (replay, 409,
 * 422), daily quota; then validation, the tool, and the kept answer.
 */
export const STEP_ORDER = {
  authenticate: 100,
  scope: 200,
  /**
   * A tool call's slot or place in the queue, within its caller's fair share, taken (never
   * refused) before anything is charged.
   */
  admission: 250,
  /** A call to run in the background: room for its result in its caller's budget (429). */
  resultRoom: 275,
  rateLimit: 300,
  idempotency: 400,
  /**
   * A tool call without a slot or a place in the queue (the tool full, or its caller past its
   * fair share): 503, charged its rate only.
   */
  capacity: 450,
  quota: 500,
} as const;

/** The caller the authentication step decided; the steps after it rely on it. */
export function callerOf(decided: Readonly<Decisions>): Caller {
  if (!decided.caller) throw new Error('Invocation step ran before authentication');
  return decided.caller;
}
