import type { IncomingHttpHeaders } from 'node:http';
import type { RequestScope } from '../common/request-scope';
import type { ApiKeyRecord } from '../store/keys/key.store';

/** A key as the request pipeline sees it: never the hash, never the secret. */
export type AuthenticatedKey = Omit<ApiKeyRecord, 'hash' | 'previous_hash'>;

/** What the pipeline reads and writes on a request, the same on Express and Fastify. */
export interface ApiRequest extends RequestScope {
  id: string;
  headers: IncomingHttpHeaders;
  body?: unknown;
  /** The client's address, behind the proxies TRUST_PROXY names. */
  ip?: string;
  apiKey?: AuthenticatedKey;
}
