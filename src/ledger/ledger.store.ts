import { setImmediate as yieldToOthers } from 'node:timers/promises';
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
 * What a subject's entries counted on one day (the counters' UTC day: a refund's is its charge's)
 * sum to, as the ledger's writer added them up in the step that wrote them.
 */
export interface LedgerDaySums {
  day: string;
  credits: number;
  entries: number;
  /** Of those, how many the time index lacks (Redis: a process stopped between the two writes). */
  unindexed: number;
}

/** Entries read in one slice of a stream; other requests are served between slices. */
export const STREAM_SLICE = 250;

/**
 * The ledger as it is read (its writer, called by the usage store's counting step, writes it):
 * pages in time order, the whole of a range in bounded memory, the purge, and what the doctor
 * reconciles.
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

  /**
   * The subjects with entries counted on these days, in id order, at most `limit` of them, and how
   * many there are in all: read from the day sums, not the entries.
   */
  abstract activeSubjects(
    days: string[],
    limit: number,
  ): Promise<{ subjects: string[]; total: number }>;
  /** A subject's day sums of these days, in their order (a day without entries: zeros). */
  abstract daySums(subjectId: string, days: string[]): Promise<LedgerDaySums[]>;
  /**
   * Indexes by time the subject's entries of these days that the index lacks (LedgerDaySums.
   * unindexed), a slice at a time; how many it found. The embedded store has none.
   */
  abstract indexMissing(subjectId: string, days: string[]): Promise<number>;

  /**
   * Every entry of the query, a page (a slice of `pageSize`) at a time: memory holds one page,
   * whatever the range, and the event loop turns between pages (a macrotask each), so that the
   * requests arriving while a long range streams are served between its slices, on the embedded
   * store too (whose reads do not wait on I/O).
   */
  async *stream(query: LedgerQuery, pageSize = STREAM_SLICE): AsyncGenerator<LedgerEntry> {
    let after = query.after;
    for (;;) {
      const page = await this.page({ ...query, after }, pageSize);
      yield* page;
      if (page.length < pageSize) return;
      after = page[page.length - 1].id;
      await yieldToOthers();
    }
  }
}
