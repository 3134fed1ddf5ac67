import type { IncomingHttpHeaders } from 'node:http';
import type { RequestScope } from '../kernel/http/request-scope';
import type { Payer, RunBudget } from '../limits';
import type { ApiKeyRecord } from './key.store';
import { createParamDecorator, ExecutionContext } from '@nestjs/common';

/** A key as the request pipeline sees it: never the hash, never the secret. */
export interface AuthenticatedKey extends Omit<ApiKeyRecord, 'hash' | 'previous_hash'> {
  kind: 'key';
  /** A run's token calls: the run its calls also count against (the key is its parent). */
  run?: RunBudget;
}

/**
 * Whom a verified OAuth access token speaks for, as the pipeline sees it: the principal's id, plan
 * and limits (its record), the token's scopes and expiry. Limits, usage, idempotency and the audit
 * trail treat it as they treat a key.
 */
export interface AuthenticatedPrincipal extends Payer {
  kind: 'principal';
  id: string;
  issuer: string;
  subject: string;
  client_id: string | null;
  /** The customer or account the principal belongs to (its record's); null: none. */
  external_id: string | null;
  /** The token's scopes the service knows (others are ignored). */
  scopes: string[];
  /** When the token expires (`exp`). */
  expires_at: string;
}

/** Who calls: a key, or an OAuth principal. One pipeline serves both alike. */
export type Caller = AuthenticatedKey | AuthenticatedPrincipal;

/** What the pipeline reads and writes on a request, the same on Express and Fastify. */
export interface ApiRequest extends RequestScope {
  id: string;
  headers: IncomingHttpHeaders;
  body?: unknown;
  /** The client's address, behind the proxies TRUST_PROXY names. */
  ip?: string;
  caller?: Caller;
}

/** Who the request was authenticated as, a key or a principal (only on routes that are not @Public). */
export const CurrentCaller = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): Caller | undefined =>
    ctx.switchToHttp().getRequest<ApiRequest>().caller,
);
