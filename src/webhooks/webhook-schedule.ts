import type { TargetAnswer } from './webhook-target';
import type { AttemptOutcome, WebhookDelivery } from './webhook.store';

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

/** An endpoint whose attempts failed this many times in a row is sent one at a time. */
export const FAILING_AFTER_ATTEMPTS = 5;

/** The statuses whose Retry-After is read: rate limited or unavailable for a while. */
function honoured(status: number | null): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}

/**
 * What an attempt of `delivery` made at `at` ends in: succeeded on a 2xx; else pending again at its
 * next time on the schedule (or sooner, by a Retry-After honoured), failed once the schedule is
 * spent or on a 410 (the receiver says it is gone for good).
 */
export function attemptOutcome(
  delivery: Pick<WebhookDelivery, 'attempt'>,
  answer: TargetAnswer,
  at: Date,
  schedule: readonly number[],
): AttemptOutcome {
  const attempt = delivery.attempt + 1;
  const status = answer.status ?? null;
  const base = { attempt, response_status: status, last_attempt_at: at.toISOString() };
  if (status !== null && status >= 200 && status < 300) {
    return { ...base, status: 'succeeded', error: null, next_attempt_at: null };
  }
  const error =
    answer.error ??
    (status === 410 ? 'answered 410 Gone: the endpoint is disabled' : `answered ${status}`);
  const delay =
    status === 410
      ? undefined
      : retryDelayMs(attempt, schedule, honoured(status) ? answer.retryAfterSeconds : undefined);
  if (delay === undefined) return { ...base, status: 'failed', error, next_attempt_at: null };
  return {
    ...base,
    status: 'pending',
    error,
    next_attempt_at: new Date(at.getTime() + delay).toISOString(),
  };
}
