import type { BudgetStorage } from './rate.store';
import type { UsageStore } from './usage.store';
import { CallCount, CallCounted, CallCounter } from './call-counter';

/** One process (the embedded store): the rate budget in memory, then the quota in the usage store. */
export class LocalCallCounter extends CallCounter {
  constructor(
    private readonly storage: BudgetStorage,
    private readonly usage: UsageStore,
  ) {
    super();
  }

  async count({ key, budget, nowMs, quota }: CallCount): Promise<CallCounted> {
    const rate = await this.storage.draw(budget, 1, nowMs);
    if (!rate.taken || !quota) return { rate };
    return { rate, quota: await this.usage.consumeQuota(key.id, quota) };
  }
}
