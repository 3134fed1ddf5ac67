/** A stored API key. The key's text is never stored: only its SHA-256 hash and a short display prefix. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  prefix: string;
  hash: string;
  scopes: string[];
  plan: string;
  daily_limit: number | null;
  rate_limit: number | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface QuotaResult {
  /** Whether this call was counted (false: the limit was already used up). */
  allowed: boolean;
  /** Calls counted for the key on that day, this one included when allowed. */
  used: number;
}

export type OverrideListener = () => void;

/**
 * All durable and shared state of the service behind one interface. Two backends implement it:
 * SQLite (embedded default) and Redis (shared by several instances). Callers never know which.
 * A backend that cannot be reached throws {@link StoreUnavailableError}.
 */
export abstract class Store {
  abstract readonly kind: 'sqlite' | 'redis';

  /** Where the data lives, for operators (a file path or a redacted URL). */
  abstract describe(): string;

  abstract insertKey(key: ApiKeyRecord): Promise<void>;
  /** Inserts the key only when the store holds no key at all; true when inserted. Atomic. */
  abstract insertKeyIfNone(key: ApiKeyRecord): Promise<boolean>;
  abstract findKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  abstract findKeyById(id: string): Promise<ApiKeyRecord | undefined>;
  abstract listKeys(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when no key has that id. Revoking twice keeps the first time. */
  abstract revokeKey(id: string, at: string): Promise<boolean>;
  abstract touchKey(id: string, at: string): Promise<void>;

  /** Configuration overrides, by dot-separated key, values as JSON-compatible data. */
  abstract getOverrides(): Promise<Record<string, unknown>>;
  abstract setOverride(key: string, value: unknown): Promise<void>;
  abstract deleteOverride(key: string): Promise<void>;

  /**
   * Counts one call for the key on the given UTC day unless `limit` calls are already counted.
   * One atomic step: with limit L exactly L calls are allowed however many arrive at once.
   * A null limit counts without limit.
   */
  abstract consumeQuota(keyId: string, day: string, limit: number | null): Promise<QuotaResult>;
  abstract getUsage(keyId: string, day: string): Promise<number>;

  /** Resolves when the backend answers; throws StoreUnavailableError otherwise. */
  abstract ping(): Promise<void>;
  /**
   * What a health probe asks: a ping and one read of the stored data, the same few commands however
   * many keys the store holds (the full integrity check is doctor's). Throws when either fails.
   */
  abstract probe(): Promise<void>;
  /** Problems found by the backend's own integrity check (damage, lost writes); empty when intact. */
  abstract checkIntegrity(): Promise<string[]>;
  /** Settings that put data at risk without damaging it yet (Redis without AOF): doctor warns. */
  durabilityWarnings(): Promise<string[]> {
    return Promise.resolve([]);
  }
  abstract close(): Promise<void>;

  private readonly overrideListeners = new Set<OverrideListener>();

  /** Called after the overrides change, on this instance or (shared backends) on any other. */
  onOverridesChanged(listener: OverrideListener): () => void {
    this.overrideListeners.add(listener);
    return () => this.overrideListeners.delete(listener);
  }

  protected notifyOverridesChanged(): void {
    for (const listener of this.overrideListeners) listener();
  }
}

/** The backend cannot be reached: callers answer 503 and serve nothing unmetered. */
export class StoreUnavailableError extends Error {
  constructor(message = 'The data store cannot be reached', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
