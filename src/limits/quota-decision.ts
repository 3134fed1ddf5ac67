import type { Tally } from './sqlite-usage.schema';
import type { QuotaCharge, QuotaResult } from './usage.store';

/**
 * One call against its day's and month's credits, and its run's budget: the month first (its
 * refusal wins when both would refuse), then the day, then the run; charged to all, or to none.
 * The month is counted whether or not a monthly limit applies, so that one set mid-month meets the
 * month's whole spend. Decided in memory on counters read in the store's transaction.
 */
export function decide(charge: QuotaCharge, day: Tally, month: Tally, run?: Tally): QuotaResult {
  const { cost, dailyLimit, monthlyLimit } = charge;
  const monthUsed = () => (monthlyLimit === null ? null : month.used);
  if (monthlyLimit !== null && month.used + cost > monthlyLimit) {
    return { allowed: false, used: day.used, monthUsed: month.used, refused: 'monthly' };
  }
  if (dailyLimit !== null && day.used + cost > dailyLimit) {
    return { allowed: false, used: day.used, monthUsed: monthUsed(), refused: 'daily' };
  }
  if (run && charge.run && run.used + cost > charge.run.budget) {
    return {
      allowed: false,
      used: day.used,
      monthUsed: monthUsed(),
      refused: 'run',
      runSpent: run.used,
    };
  }
  day.used += cost;
  month.used += cost;
  if (!run) return { allowed: true, used: day.used, monthUsed: monthUsed() };
  run.used += cost;
  return { allowed: true, used: day.used, monthUsed: monthUsed(), runSpent: run.used };
}
