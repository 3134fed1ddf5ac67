import type { Caller } from '../subjects';
import type { ResourceName } from '../kernel/auth/protected-resource';
import type { WantedScope } from '../kernel/auth/scopes';
import type { QuotaState } from '../limits';

/** How a call arrived: an HTTP route (REST, and the /mcp POST itself), or an MCP tools/call. */
export type Transport = 'rest' | 'mcp-http' | 'mcp-stdio';

/**
 * One call of a route or a tool, as its transport knows it when it arrives: fixed from then on.
 * CallChecks reads it and answers what it decided (AdmittedCall).
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
  /** A tool call's body (MCP: its arguments), for its Idempotency-Key's fingerprint. */
  body?: unknown;
  /** The client's Idempotency-Key as received (REST header, MCP `_meta`); undefined: none. */
  idempotencyKey?: unknown;
  /** The caller, when its transport authenticated it for this very call (an MCP POST, its first call). */
  caller?: Caller;
  /** Its rate budget already charged by its transport (every message of an MCP POST). */
  rateLimitCounted?: boolean;
  /**
   * The invocation id a tool call will run as in the background (docs/long-running-calls.md),
   * decided by its transport before its checks: its caller's budget of kept answers must have
   * room for its result (CallChecks, step 5).
   */
  background?: string;
}

/**
 * What the answer to a call carries, refused or not, as its checks learn it: its headers, and
 * who called (for the request's log line), once authenticated.
 */
export interface CallResponse {
  headers: Record<string, string | number>;
  caller?: Caller;
  /** Where the caller stands after the call was charged its credits (a tool call counted). */
  quota?: QuotaState;
}
