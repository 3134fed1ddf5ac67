/** Usage counters are kept this many days (the usage history reaches back as far). */
export const USAGE_KEEP_DAYS = 90;

/** The UTC day `days` before `day` (both `YYYY-MM-DD`). */
export function dayBefore(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

export interface QuotaResult {
  /** Whether this call was counted (false: the limit was already used up). */
  allowed: boolean;
  /** Calls counted for the key on that day, this one included when allowed. */
  used: number;
}

/** Calls counted per key and UTC day: the daily quota and the usage history. */
export abstract class UsageStore {
  /**
   * Counts one call for the key on the given UTC day unless `limit` calls are already counted.
   * One atomic step: with limit L exactly L calls are allowed however many arrive at once.
   * A null limit counts without limit.
   */
  abstract consumeQuota(keyId: string, day: string, limit: number | null): Promise<QuotaResult>;
  abstract getUsage(keyId: string, day: string): Promise<number>;
  /** Calls counted for the key on each of the given UTC days (0 for a day without calls). */
  abstract getUsageDays(keyId: string, days: string[]): Promise<number[]>;
}
