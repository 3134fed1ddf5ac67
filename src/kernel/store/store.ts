/** A Redis store's layout as a health probe sees it: no addresses (anyone may read /health). */
export interface StoreTopology {
  mode: 'single' | 'sentinel' | 'cluster';
  /** Redis servers holding the data: 1; the master and its connected replicas; a cluster's nodes. */
  nodes: number;
}

/**
 * Where the service's durable and shared state lives, as a whole: one SQLite file (the embedded
 * default) or Redis (one server, Sentinel or a Cluster, shared by several instances). What is
 * stored is split by concern (keys, usage, rate windows, idempotency, audit, overrides,
 * long-running calls), each kept by its feature with an implementation per backend, made on the
 * one backend opened at start-up (StoreModule). This class is what they share: health, integrity
 * and the end of the connection.
 */
export abstract class Store {
  abstract readonly kind: 'sqlite' | 'redis';

  /** Where the data lives, for operators (a file path or a redacted URL). */
  abstract describe(): string;

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
}

/** The backend cannot be reached: callers answer 503 and serve nothing unmetered. */
export class StoreUnavailableError extends Error {
  constructor(message = 'The data store cannot be reached', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** One concern's integrity check beside the backend's (a Redis key index against its records). */
export interface IntegrityCheck {
  checkIntegrity(): Promise<string[]>;
}
