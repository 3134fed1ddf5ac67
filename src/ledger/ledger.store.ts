import type { LedgerEntry } from './ledger-entry';

/** Which entries a read takes: a range of time, and filters. */
export interface LedgerQuery {
  /** Inclusive, ms. */
  fromMs: number;
  /** Exclusive, ms. */
  toMs: number;
  /** A key's or a principal's id. */
  subjectId?: string;
  externalId?: string;
  runId?: string;
  tool?: string;
  /** Entries after this id (the last of the previous page). */
  after?: string;
}

/** What a subject's entries sum to. */
export interface LedgerSums {
  charges: number;
  credits: number;
}

/**
 * The ledger as it is read (the usage store writes it, with its counts): pages in time order,
 * the whole of a range in bounded memory, the purge, and what the doctor reconciles.
 */
export abstract class LedgerStore {
  /** At most `limit` entries of the query, in id (time) order. */
  abstract page(query: LedgerQuery, limit: number): Promise<LedgerEntry[]>;
  /** Forgets entries made before `beforeMs`, at most `limit` of them; how many. */
  abstract purge(beforeMs: number, limit: number): Promise<number>;
  /** What a subject's entries in [fromMs, toMs) sum to (credits, and charges counted). */
  abstract sums(subjectId: string, fromMs: number, toMs: number): Promise<LedgerSums>;
  /** The subjects with entries in [fromMs, toMs) (each once). */
  abstract subjects(fromMs: number, toMs: number): Promise<string[]>;
  /**
   * A subject's entries in [fromMs, toMs) that a shared store wrote beside their counters but not
   * into its time index (a process stopped between the two): how many; with `apply`, indexed now.
   * The embedded store has none.
   */
  abstract unindexed(
    subjectId: string,
    fromMs: number,
    toMs: number,
    apply: boolean,
  ): Promise<number>;

  /** Every entry of the query, a page at a time: memory holds one page, whatever the range. */
  async *stream(query: LedgerQuery, pageSize = 1000): AsyncGenerator<LedgerEntry> {
    let after = query.after;
    for (;;) {
      const page = await this.page({ ...query, after }, pageSize);
      yield* page;
      if (page.length < pageSize) return;
      after = page[page.length - 1].id;
    }
  }
}
