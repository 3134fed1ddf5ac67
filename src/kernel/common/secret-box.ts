import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const SEALED = 'sealed:v1:';

/**
 * How secrets are kept in the store (webhook signing secrets, sources' credentials): as they are,
 * or with SECRETS_KEY (WEBHOOK_SECRET_KEY its alias) sealed by AES-256-GCM: they are needed
 * themselves (to sign, to send upstream), so they cannot be hashes. Each purpose gets its own key,
 * derived from the setting by HKDF, so any long random text will do.
 */
export class SecretBox {
  private readonly key?: Buffer;

  constructor(
    secretKey: string | undefined,
    /** What the box holds: HKDF's `info`, and the name its errors use. */
    private readonly purpose = 'webhook secrets',
  ) {
    if (secretKey) {
      this.key = Buffer.from(hkdfSync('sha256', secretKey, 'tool-invocation-service', purpose, 32));
    }
  }

  /** Whether secrets are sealed (SECRETS_KEY set), or kept as they are. */
  get sealing(): boolean {
    return this.key !== undefined;
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
    if (!this.key) {
      throw new Error(`Stored ${this.purpose} are sealed: SECRETS_KEY is needed to use them`);
    }
    const raw = Buffer.from(stored.slice(SEALED.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
