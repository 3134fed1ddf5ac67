import type { ApiKeyRecord } from './key.store';
import type { ApiKeyView } from './api-keys.dto';
import type { AuthenticatedKey } from './caller';

/** What can be asked of a key's lifecycle: revoked beats expired, which beats disabled. */
export function keyStatus(
  key: Pick<ApiKeyRecord, 'revoked_at' | 'expires_at' | 'enabled'>,
  now = new Date(),
): ApiKeyView['status'] {
  if (key.revoked_at) return 'revoked';
  if (key.expires_at && Date.parse(key.expires_at) <= now.getTime()) return 'expired';
  if (!key.enabled) return 'disabled';
  return 'active';
}

/** The end of a rotation's grace while it runs; null once it is over (or there was none). */
export function previousKeyExpiry(
  key: Pick<ApiKeyRecord, 'previous_key_expires_at'> & { previous_hash?: string | null },
  now: Date,
): string | null {
  const until = key.previous_key_expires_at;
  return key.previous_hash !== null && until && Date.parse(until) > now.getTime() ? until : null;
}

export function toView(key: ApiKeyRecord | AuthenticatedKey, now = new Date()): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    plan: key.plan,
    daily_limit: key.daily_limit,
    monthly_limit: key.monthly_limit,
    rate_limit: key.rate_limit,
    created_at: key.created_at,
    expires_at: key.expires_at,
    revoked_at: key.revoked_at,
    last_used_at: key.last_used_at,
    enabled: key.enabled,
    status: keyStatus(key, now),
    previous_key_expires_at: previousKeyExpiry(key, now),
    external_id: key.external_id,
  };
}
