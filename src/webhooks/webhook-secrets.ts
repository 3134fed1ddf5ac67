import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret, as Standard Webhooks writes them: `whsec_` and 32 random bytes in base64. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const SEALED = 'sealed:v1:';

/**
 * How secrets are kept in the store: as they are, or with WEBHOOK_SECRET_KEY sealed by AES-256-GCM
 * (HMAC needs the secret itself, so it cannot be a hash). The key is derived from the setting by
 * HKDF, so any long random text will do.
 */
export class SecretBox {
  private readonly key?: Buffer;

  constructor(secretKey: string | undefined) {
    if (secretKey) {
      this.key = Buffer.from(
        hkdfSync('sha256', secretKey, 'tool-invocation-service', 'webhook secrets', 32),
      );
    }
  }

  seal(secret: string): string {
    if (!this.key) return secret;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return SEALED + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
  }

  open(stored: string): string {
    if (!stored.startsWith(SEALED)) return stored;
    if (!this.key)
      throw new Error('A webhook secret is sealed: WEBHOOK_SECRET_KEY is needed to use it');
    const raw = Buffer.from(stored.slice(SEALED.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/**
 * The Standard Webhooks headers of one attempt: `webhook-signature` holds a `v1,<base64>` per
 * secret, space-separated (the current one and, during a rotation's grace, the previous one).
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
