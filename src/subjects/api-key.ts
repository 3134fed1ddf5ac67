import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `sk_` and 64 lowercase hex digits: 256 bits from the system's secure random source. */
export const API_KEY_PATTERN = /^sk_[0-9a-f]{64}$/;

export function generateApiKey(): string {
  return `sk_${randomBytes(32).toString('hex')}`;
}

export function generateKeyId(): string {
  return `key_${randomBytes(8).toString('hex')}`;
}

/** One-shot: a fraction of the cost of a Hash object on every authenticated call. */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** What may be shown of a key after creation: enough to recognise it, far too little to use it. */
export function displayPrefix(key: string): string {
  return key.slice(0, 11);
}

export function hashesEqual(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/**
 * The token of an `Authorization: Bearer <token>` header (scheme in any case), or undefined when the
 * header is absent, of another scheme or empty.
 */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
