/** How an idempotent call stands when it arrives (see IdempotencyStore.beginIdempotent). */
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

/** What one key may keep of idempotent answers (see IdempotencyStore.beginIdempotent). */
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

/** Idempotency entries: per key, a marker while a call runs, then its kept answer. */
export abstract class IdempotencyStore {
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
   * Whether the key holds `caps.entries` entries or `caps.bytes` bytes now (its expired entries
   * forgotten first, only then: a key with room writes nothing): when full, the time its oldest
   * entry expires; undefined when it has room.
   */
  abstract fullUntil(
    keyId: string,
    nowMs: number,
    caps: IdempotencyCaps,
  ): Promise<number | undefined>;
  /**
   * Counts an entry of `bytes` under `scope` (no answer to replay) against the key's budget until
   * `keepUntilMs`: a long-running call's result. Nothing when the scope has an entry already.
   */
  abstract keepSize(
    keyId: string,
    scope: string,
    bytes: number,
    keepUntilMs: number,
  ): Promise<void>;
  /** Forgets the entry under `scope` while it is a marker or a kept 202 (a call that never ran). */
  abstract forgetAccepted(keyId: string, scope: string): Promise<void>;
  /**
   * Forgets the expired entries of every key, revoked keys' too (whose entries no call of theirs
   * would ever prune); how many. Worked through in slices, so that no request waits for all of it.
   */
  abstract purgeIdempotent(nowMs: number): Promise<number>;
}
