import type { Request } from 'express';
import type { RequestScope } from '../common/request-scope';
import type { ApiKeyRecord } from '../store/store';

/** A key as the request pipeline sees it: never the hash, never the secret. */
export type AuthenticatedKey = Omit<ApiKeyRecord, 'hash' | 'previous_hash'>;

export interface ApiRequest extends Request, RequestScope {
  id: string;
  apiKey?: AuthenticatedKey;
}
