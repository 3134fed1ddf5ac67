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
  /** A disabled key is refused (401) until enabled again. */
  enabled: boolean;
  /** The hash of the secret before the last rotation, accepted until previous_key_expires_at. */
  previous_hash: string | null;
  previous_key_expires_at: string | null;
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
export function mayBeKept(record: Pick<ApiKeyRecord, 'revision'>): boolean {
  return record.revision !== undefined;
}

/** A key as inserted: the lifecycle fields default to enabled, no previous secret. */
export type NewKeyRecord = Omit<
  ApiKeyRecord,
  'enabled' | 'previous_hash' | 'previous_key_expires_at'
> &
  Partial<Pick<ApiKeyRecord, 'enabled' | 'previous_hash' | 'previous_key_expires_at'>>;

/** What a PATCH may change of a key. */
export type KeyChanges = Partial<
  Pick<ApiKeyRecord, 'name' | 'scopes' | 'plan' | 'daily_limit' | 'rate_limit' | 'enabled'>
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

/** One recorded change: who did what to which key or setting. Never a secret. */
export interface AuditEntry {
  /** Increasing: a later entry has a larger id. */
  id: number;
  at: string;
  actor_key_id: string | null;
  action: string;
  target: string;
  request_id: string | null;
  details: Record<string, unknown>;
}

/** How an idempotent call stands when it arrives (see Store.beginIdempotent). */
export type IdempotencyBegin =
  /** First of its kind: it runs, marked in progress under `token`. */
  | { state: 'started' }
  /** Its first run is still going. */
  | { state: 'in_progress' }
  /** The same Idempotency-Key was used with another request. */
  | { state: 'mismatch' }
  /** Its first run finished: the kept answer. */
  | { state: 'done'; status: number; body: string }
  /**
   * The key holds as many entries, or as many bytes, as it may: this call is refused until the
   * oldest entry expires, at `retryAtMs`.
   */
  | { state: 'full'; retryAtMs: number };

/** What one key may keep of idempotent answers (see Store.beginIdempotent). */
export interface IdempotencyCaps {
  entries: number;
  bytes: number;
}

export interface IdempotencyClaim {
  keyId: string;
  /** The tool and the client's Idempotency-Key. */
  scope: string;
  /** SHA-256 of the request's canonical JSON. */
  fingerprint: string;
  /** Tells this run's marker from a later one's. */
  token: string;
  /** What the marker counts against the key's byte budget until its answer is kept. */
  markerBytes: number;
}

export interface QuotaResult {
  /** Whether this call was counted (false: the limit was already used up). */
  allowed: boolean;
  /** Calls counted for the key on that day, this one included when allowed. */
  used: number;
}

export type OverrideListener = () => void;

/** A Redis store's layout as a health probe sees it: no addresses (anyone may read /health). */
export interface StoreTopology {
  mode: 'single' | 'sentinel' | 'cluster';
  /** Redis servers holding the data: 1; the master and its connected replicas; a cluster's nodes. */
  nodes: number;
}

/**
 * All durable and shared state of the service behind one interface. Two backends implement it:
 * SQLite (embedded default) and Redis (shared by several instances). Callers never know which.
 * A backend that cannot be reached throws {@link StoreUnavailableError}.
 */
export abstract class Store {
  abstract readonly kind: 'sqlite' | 'redis';

  /** Where the data lives, for operators (a file path or a redacted URL). */
  abstract describe(): string;

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
  /** Calls counted for the key on each of the given UTC days (0 for a day without calls). */
  abstract getUsageDays(keyId: string, days: string[]): Promise<number[]>;

  /** Records an entry (its id is given here) and forgets entries older than `keepSince`. */
  abstract appendAudit(entry: Omit<AuditEntry, 'id'>, keepSince: string): Promise<AuditEntry>;
  /** Entries newest first, older than entry `before` when given, none older than `since`. */
  abstract listAudit(query: {
    before?: number;
    limit: number;
    since: string;
  }): Promise<AuditEntry[]>;

  /**
   * One atomic step per key id: a kept answer for (key id, scope) when its fingerprint matches,
   * `mismatch` when not, `in_progress` while a live marker stands, else a new marker (expiring at
   * `runningUntilMs`, counting `claim.markerBytes`) unless the key already holds `caps.entries`
   * entries or `caps.bytes` bytes (`full`, with the time its oldest entry expires). The key's
   * expired entries are forgotten first.
   */
  abstract beginIdempotent(
    claim: IdempotencyClaim,
    nowMs: number,
    runningUntilMs: number,
    caps: IdempotencyCaps,
  ): Promise<IdempotencyBegin>;
  /**
   * Keeps the answer of a run whose marker is still this claim's, until `keepUntilMs`; the entry
   * counts `answerBytes` more against the key's byte budget.
   */
  abstract completeIdempotent(
    claim: IdempotencyClaim,
    status: number,
    body: string,
    keepUntilMs: number,
    answerBytes: number,
  ): Promise<void>;
  /** Removes this claim's marker: the call was refused or its answer is not kept. */
  abstract releaseIdempotent(claim: IdempotencyClaim): Promise<void>;
  /**
   * Forgets the expired entries of every key, revoked keys' too (whose entries no call of theirs
   * would ever prune); how many. Worked through in slices, so that no request waits for all of it.
   */
  abstract purgeIdempotent(nowMs: number): Promise<number>;

  /** Resolves when the backend answers; throws StoreUnavailableError otherwise. */
  abstract ping(): Promise<void>;
  /**
   * What a health probe asks: a ping and one read of the stored data, the same few commands however
   * many keys the store holds (the full integrity check is doctor's). Throws when either fails.
   * A Redis store answers its topology; the embedded store, undefined.
   */
  abstract probe(): Promise<StoreTopology | undefined>;
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
