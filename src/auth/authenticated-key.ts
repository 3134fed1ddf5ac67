import type { Request } from 'express';
import type { ApiKeyRecord } from '../store/store';

/** A key as the request pipeline sees it: never the hash, never the secret. */
export type AuthenticatedKey = Omit<ApiKeyRecord, 'hash'>;

export interface ApiRequest extends Request {
  id: string;
  apiKey?: AuthenticatedKey;
}
