/** A stored API key. The key's text is never stored: only its SHA-256 hash and a short display prefix. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  prefix: string;
  hash: string;
  scopes: string[];
  plan: string;
  daily_limit: number | null;
  /** Credits per UTC calendar month of its own; null: the plan's. */
  monthly_limit: number | null;
  rate_limit: number | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  /** A disabled key is refused (401) until enabled again. */
  enabled: boolean;
  /** The hash of the secret before the last rotation, accepted until previous_key_expires_at. */
  previous_hash: string | null;
  previous_key_expires_at: string | null;
  /** The customer or account the key belongs to (an operator's label); null: none given. */
  external_id: string | null;
  /**
   * A shared store's count of the record's changes (Redis): every change raises it, so that a copy
   * an instance keeps between calls is checked in the same step that counts a call. Undefined on
   * SQLite, whose copies are checked against the database itself on every read.
   */
  revision?: number;
}

/**
 * Whether a shared store may have answered this record from a copy kept between calls: its records
 * carry a revision. The embedded store's never do (they are checked against the database on read).
 */
export function mayBeCached(record: Pick<ApiKeyRecord, 'revision'>): boolean {
  return record.revision !== undefined;
}

/** The fields a new key may leave out (see NewKeyRecord). */
type DefaultedKeyField =
  'enabled' | 'previous_hash' | 'previous_key_expires_at' | 'monthly_limit' | 'external_id';

/**
 * A key as inserted: the lifecycle fields default to enabled, no previous secret, no monthly
 * limit, no external id.
 */
export type NewKeyRecord = Omit<ApiKeyRecord, DefaultedKeyField> &
  Partial<Pick<ApiKeyRecord, DefaultedKeyField>>;

/** What a PATCH may change of a key. */
export type KeyChanges = Partial<
  Pick<
    ApiKeyRecord,
    | 'name'
    | 'scopes'
    | 'plan'
    | 'daily_limit'
    | 'monthly_limit'
    | 'rate_limit'
    | 'enabled'
    | 'external_id'
  >
>;

/** A new secret for a key: its hash and prefix, and the old hash kept for a grace (or none). */
export interface KeyRotation {
  hash: string;
  prefix: string;
  previous_hash: string | null;
  previous_key_expires_at: string | null;
}

/** Where a page of the key list starts: after this key in `(created_at, id)` order. */
export interface KeyPosition {
  created_at: string;
  id: string;
}

/** API keys: their records, the lookup from a secret's hash, the ordered list. */
export abstract class KeyStore {
  abstract insertKey(key: NewKeyRecord): Promise<void>;
  /** Inserts the key only when the store holds no key at all; true when inserted. Atomic. */
  abstract insertKeyIfNone(key: NewKeyRecord): Promise<boolean>;
  /**
   * The key a secret's hash opens. A shared store may answer from a copy kept between calls, to be
   * checked when the call is counted (see CallCounter); `fresh` reads the record itself.
   */
  abstract findKeyByHash(
    hash: string,
    options?: { fresh?: boolean },
  ): Promise<ApiKeyRecord | undefined>;
  abstract findKeyById(id: string): Promise<ApiKeyRecord | undefined>;
  /** Keys in `(created_at, id)` order, after `after` when given, at most `limit` when given. */
  abstract listKeys(page?: { after?: KeyPosition; limit?: number }): Promise<ApiKeyRecord[]>;
  /** Changes a key's settings; the updated record, or undefined when no key has that id. */
  abstract updateKey(id: string, changes: KeyChanges): Promise<ApiKeyRecord | undefined>;
  /**
   * Gives a key a new secret, keeping its id, settings and usage; the previous secret (if kept)
   * replaces any earlier one. The updated record, or undefined when no key has that id.
   */
  abstract rotateKey(id: string, rotation: KeyRotation): Promise<ApiKeyRecord | undefined>;
  /** Marks the key revoked; false when no key has that id. Revoking twice keeps the first time. */
  abstract revokeKey(id: string, at: string): Promise<boolean>;
  abstract touchKey(id: string, at: string): Promise<void>;
  /** Problems of the keys' own layout (a shared store's index against its records); none by default. */
  checkIntegrity(): Promise<string[]> {
    return Promise.resolve([]);
  }
}
