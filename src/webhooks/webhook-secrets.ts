import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { WebhookSecret } from './webhook.store';

/** Rotated-out secrets that keep signing, each until its own grace ends: at most this many. */
export const MAX_PREVIOUS_SECRETS = 2;

/** A new signing secret, as Standard Webhooks writes them: `whsec_` and 32 random bytes in base64. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * An endpoint's secrets after a rotation at `now`, `sealed` the current one: the one it replaces
 * signs for `graceSeconds` more, and those rotated out before keep their own grace (the oldest
 * dropped past MAX_PREVIOUS_SECRETS, the expired ones dropped). A grace of 0 is a rotation
 * without any: the new secret alone signs from now on.
 */
export function rotatedSecrets(
  secrets: readonly WebhookSecret[],
  sealed: string,
  now: Date,
  graceSeconds: number,
): { secrets: WebhookSecret[]; previousUntil: string | null } {
  const current = secrets.find((secret) => secret.expires_at === null);
  if (graceSeconds === 0 || !current) {
    return { secrets: [{ value: sealed, expires_at: null }], previousUntil: null };
  }
  const at = now.toISOString();
  const previousUntil = new Date(now.getTime() + graceSeconds * 1000).toISOString();
  const inGrace = secrets.filter((secret) => secret.expires_at !== null && secret.expires_at > at);
  const previous = [{ value: current.value, expires_at: previousUntil }, ...inGrace];
  return {
    secrets: [{ value: sealed, expires_at: null }, ...previous.slice(0, MAX_PREVIOUS_SECRETS)],
    previousUntil,
  };
}

/**
 * The Standard Webhooks headers of one attempt: `webhook-signature` holds a `v1,<base64>` per
 * secret, space-separated (the current one and, during rotations' grace, each previous one).
 */
export function signedHeaders(
  eventId: string,
  at: Date,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets
      .map((secret) => new Webhook(secret).sign(eventId, at, body))
      .join(' '),
  };
}
