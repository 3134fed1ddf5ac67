/**
 * Svix's schedule, which Standard Webhooks receivers expect: after the first attempt fails, the
 * next ones at about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h; then the delivery has failed.
 */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];

/** An endpoint that fails every delivery this long is disabled. */
export const FAILING_DISABLE_MS = 5 * 86_400_000;

/**
 * How long after failed attempt number `attempts` (1 for the first) the next one is made, or
 * undefined when the schedule is spent: the schedule's step ±20 %, or the receiver's Retry-After
 * when that is sooner.
 */
export function retryDelayMs(
  attempts: number,
  schedule: readonly number[],
  retryAfterSeconds?: number,
  random: () => number = Math.random,
): number | undefined {
  const step = schedule[attempts - 1];
  if (step === undefined) return undefined;
  const jittered = Math.round(step * 1000 * (0.8 + 0.4 * random()));
  return retryAfterSeconds === undefined
    ? jittered
    : Math.min(Math.max(0, retryAfterSeconds) * 1000, jittered);
}
