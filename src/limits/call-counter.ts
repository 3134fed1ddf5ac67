import { Store, StoreUnavailableError, type QuotaResult } from '../store/store';
import { type KeyRateBudget, UNTIL_WINDOW_ENDS } from './key-limits';
import type { BudgetStorage, ThrottlerStorageRecord } from './memory-throttler.storage';

/** One call to count: against the key's rate budget, then (when `quota` is given) its daily quota. */
export interface CallCount {
  /** The key, with the revision of the record the call was decided on (a shared store's). */
  key: { id: string; revision?: number };
  budget: KeyRateBudget;
  /** The UTC day and the daily limit (null: none) to count the call against, after the rate budget. */
  quota?: { day: string; limit: number | null };
}

export interface CallCounted {
  /** The rate budget's answer, as @nestjs/throttler's storage gives it. */
  rate: ThrottlerStorageRecord;
  /** The quota's answer; absent when none was asked or the rate budget refused the call. */
  quota?: QuotaResult;
}

/**
 * The key's record changed after the call read it (a kept copy, see RedisStore.findKeyByHash):
 * nothing was counted, and the invocation pipeline starts the call over on the record itself.
 * Should it keep changing under every attempt, the call is answered 503.
 */
export class KeyRecordChanged extends StoreUnavailableError {
  constructor() {
    super('The API key changed while the call was counted');
    this.name = 'KeyRecordChanged';
  }
}

/**
 * Counts a keyed call where its counters live: the rate budget first (over it, nothing more is
 * counted), then the daily quota when asked. The rate step asks for both when nothing of the
 * contract's order stands between them, so that on Redis a call costs one round trip.
 */
export abstract class CallCounter {
  abstract count(call: CallCount): Promise<CallCounted>;
}

/** One process (the embedded store): the rate budget in memory, then the quota in the store. */
export class LocalCallCounter extends CallCounter {
  constructor(
    private readonly storage: BudgetStorage,
    private readonly store: Store,
  ) {
    super();
  }

  async count({ key, budget, quota }: CallCount): Promise<CallCounted> {
    const rate = await this.storage.increment(
      budget.storageKey,
      budget.ttlMs,
      budget.limit,
      UNTIL_WINDOW_ENDS,
      budget.throttler,
    );
    if (rate.isBlocked || !quota) return { rate };
    return { rate, quota: await this.store.consumeQuota(key.id, quota.day, quota.limit) };
  }
}
