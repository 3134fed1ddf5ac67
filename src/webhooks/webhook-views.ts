import { randomBytes } from 'node:crypto';
import type { WebhookEvent } from './webhook-events';
import type { WebhookDelivery, WebhookEndpoint } from './webhook.store';
import type { WebhookDeliveryView, WebhookEndpointView } from './webhooks.dto';

/**
 * The URL as views, the audit trail and logs show it: its query string, which often holds a token
 * (as `user:password@` would, which is refused), as `?…`. The stored URL keeps it for delivery.
 */
export function shownUrl(url: string): string {
  const fragment = url.indexOf('#');
  const query = url.slice(0, fragment === -1 ? url.length : fragment).indexOf('?');
  return query === -1 ? url : `${url.slice(0, query)}?…`;
}

/** The fields of a change the audit trail records, each `{from, to}`, a URL's query string hidden. */
export function auditedChanges(
  before: WebhookEndpoint,
  changes: Partial<WebhookEndpoint>,
): Record<string, { from: unknown; to: unknown }> {
  const shown = (field: string, value: unknown) =>
    field === 'url' && typeof value === 'string' ? shownUrl(value) : value;
  return Object.fromEntries(
    (['url', 'events', 'description', 'enabled'] as const)
      .filter((field) => field in changes)
      .filter((field) => JSON.stringify(before[field]) !== JSON.stringify(changes[field]))
      .map((field) => [
        field,
        { from: shown(field, before[field]), to: shown(field, changes[field]) },
      ]),
  );
}

/** Ids ordered by time: a later delivery's id sorts after an earlier one's. */
let lastIdMs = 0;
let idSequence = 0;
export function newDeliveryId(now: Date): string {
  const ms = now.getTime();
  idSequence = ms === lastIdMs ? idSequence + 1 : 0;
  lastIdMs = ms;
  const time = ms.toString(36).padStart(9, '0');
  const sequence = idSequence.toString(36).padStart(3, '0');
  return `dlv_${time}${sequence}${randomBytes(6).toString('hex')}`;
}

/** The rotated-out secrets still signing at `now`, the most recently rotated first: until when. */
export function previousSecrets(endpoint: WebhookEndpoint, now: Date): { expires_at: string }[] {
  const at = now.toISOString();
  return endpoint.secrets.flatMap(({ expires_at }) =>
    expires_at !== null && expires_at > at ? [{ expires_at }] : [],
  );
}

/** An endpoint as the API shows it at `now`: never a secret, its URL's query string hidden. */
export function toView(endpoint: WebhookEndpoint, now: Date): WebhookEndpointView {
  const previous = previousSecrets(endpoint, now);
  const latest = previous
    .map((secret) => secret.expires_at)
    .sort()
    .at(-1);
  return {
    id: endpoint.id,
    url: shownUrl(endpoint.url),
    events: endpoint.events,
    description: endpoint.description,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabled_reason,
    failing_since: endpoint.failing_since,
    previous_secret_expires_at: latest ?? null,
    previous_secrets: previous,
    created_at: endpoint.created_at,
    updated_at: endpoint.updated_at,
  };
}

export function deliveryView(delivery: WebhookDelivery): WebhookDeliveryView {
  return {
    id: delivery.id,
    event_id: delivery.event_id,
    type: delivery.type,
    attempt: delivery.attempt,
    status: delivery.status,
    response_status: delivery.response_status,
    error: delivery.error,
    at: delivery.at,
    next_attempt_at: delivery.next_attempt_at,
  };
}

/** The event's delivery to one endpoint: pending, due at once, its body the event as JSON. */
export function newDelivery(event: WebhookEvent, endpointId: string, now: Date): WebhookDelivery {
  return {
    id: newDeliveryId(now),
    endpoint_id: endpointId,
    event_id: event.id,
    type: event.type,
    payload: JSON.stringify(event),
    attempt: 0,
    status: 'pending',
    response_status: null,
    error: null,
    at: event.created_at,
    last_attempt_at: null,
    next_attempt_at: event.created_at,
  };
}
