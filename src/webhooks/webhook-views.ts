import { randomBytes } from 'node:crypto';
import type { WebhookEvent } from './webhook-events';
import type { WebhookDelivery, WebhookEndpoint } from './webhook.store';
import type { WebhookDeliveryView, WebhookEndpointView } from './webhooks.dto';

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

export function toView(endpoint: WebhookEndpoint): WebhookEndpointView {
  const previous = endpoint.secrets.find((secret) => secret.expires_at !== null);
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabled_reason,
    failing_since: endpoint.failing_since,
    previous_secret_expires_at: previous?.expires_at ?? null,
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
