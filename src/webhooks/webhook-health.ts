import type { WebhookEndpoint } from './webhook.store';

/** How far back doctor looks for deliveries failed unsent past the backlog's cap. */
const BACKLOG_WARN_MS = 86_400_000;

/**
 * What doctor reports: the endpoints, those failing or disabled on their own, those whose
 * deliveries failed unsent past the backlog's cap in the last day (with how many in all, and
 * the cap), the outbox's depth.
 */
export interface WebhooksHealth {
  endpoints: number;
  failing: string[];
  disabled: { id: string; reason: string }[];
  backlogged: { id: string; failed: number; at: string }[];
  maxPending: number;
  pending: number;
}

export function webhooksHealth(
  endpoints: WebhookEndpoint[],
  now: Date,
  maxPending: number,
  pending: number,
): WebhooksHealth {
  const since = new Date(now.getTime() - BACKLOG_WARN_MS).toISOString();
  return {
    endpoints: endpoints.length,
    failing: endpoints.filter((e) => e.enabled && e.failing_since !== null).map((e) => e.id),
    disabled: endpoints
      .filter((e) => !e.enabled && e.disabled_reason !== 'operator')
      .map((e) => ({ id: e.id, reason: e.disabled_reason ?? 'unknown' })),
    backlogged: endpoints.flatMap((e) =>
      e.backlog_failed_at !== null && e.backlog_failed_at > since
        ? [{ id: e.id, failed: e.backlog_failed, at: e.backlog_failed_at }]
        : [],
    ),
    maxPending,
    pending,
  };
}
