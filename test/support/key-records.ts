import type { NewKeyRecord } from '../../src/subjects/key.store';

/**
 * A key record as the key store takes it, for the stores' own tests: named, prefixed and "hashed"
 * after `i` (no secret opens it), no limits, active.
 */
export function newKeyRecord(i: number, id: string, created_at: string): NewKeyRecord {
  return {
    id,
    name: `key-${i}`,
    prefix: `sk_${i}`,
    hash: `hash-${i}`,
    scopes: ['services:execute'],
    plan: 'free',
    daily_limit: null,
    rate_limit: null,
    created_at,
    expires_at: null,
    revoked_at: null,
    last_used_at: null,
  };
}
