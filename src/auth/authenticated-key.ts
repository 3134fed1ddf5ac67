import type { Request } from 'express';
import type { ApiKeyRecord, IdempotencyClaim } from '../store/store';

/** A key as the request pipeline sees it: never the hash, never the secret. */
export type AuthenticatedKey = Omit<ApiKeyRecord, 'hash' | 'previous_hash'>;

export interface ApiRequest extends Request {
  id: string;
  apiKey?: AuthenticatedKey;
  /** Set when this tool call's answer is to be kept for its Idempotency-Key. */
  idempotency?: IdempotencyClaim;
}
