import { StoreUnavailableError } from '../kernel/store/store';
import type { QuotaCharge, QuotaResult } from './usage.store';
import type { BucketDraw, RateBudget } from './rate.store';

export type { RateBudget };

/** One call to count: against the key's rate budget, then (when `quota` is given) its daily quota. */
export interface CallCount {
  /** The key, with the revision of the record the call was decided on (a shared store's). */
  key: { id: string; revision?: number };
  budget: RateBudget;
  /** When the call is counted (ms since the epoch): the bucket refills by the callers' clock. */
  nowMs: number;
  /** What to charge the call against its day's (and month's) credits, after the rate budget. */
  quota?: QuotaCharge;
}

export interface CallCounted {
  /** The rate budget's answer: one call drawn from the key's bucket, or refused. */
  rate: BucketDraw;
  /** The quota's answer; absent when none was asked or the rate budget refused the call. */
  quota?: QuotaResult;
}

/**
 * The key's record changed after the call read it (a cached copy, see RedisKeyStore.findKeyByHash):
 * nothing was counted, and CallChecks starts the call over on the record itself.
 * Should it keep changing under every attempt, the call is answered 503.
 */
export class SubjectRecordChanged extends StoreUnavailableError {
  constructor() {
    super('The API key changed while the call was counted');
    this.name = 'SubjectRecordChanged';
  }
}

/**
 * The counting concern of the store: counts a keyed call where its counters live, the rate
 * budget first (over it, nothing more is counted), then the daily quota when asked, in one step
 * of the store, so that on Redis a call costs one round trip (RedisCallCounter) and on SQLite the
 * rate bucket in memory and the quota in one group commit (LocalCallCounter).
 */
export abstract class CallCounter {
  abstract count(call: CallCount): Promise<CallCounted>;
}
