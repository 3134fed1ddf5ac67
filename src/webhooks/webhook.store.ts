/** A signing secret of an endpoint: the current one, and a rotated-out one while its grace runs. */
export interface WebhookSecret {
  /** `whsec_` + base64, or its sealed form when WEBHOOK_SECRET_KEY is set (webhook-secrets.ts). */
  value: string;
  /** When it stops signing (ISO); null for the current secret. */
  expires_at: string | null;
}

/** Why an endpoint was disabled: by an operator, by its receiver's 410, or after 5 days failing. */
export type DisabledReason = 'operator' | 'gone' | 'failing';

/** A receiver of events: where they go, which ones, and the secrets that sign them. */
export interface WebhookEndpoint {
  /** `wh_` + 16 hex. */
  id: string;
  url: string;
  /** Event type names, or `["*"]`. */
  events: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: DisabledReason | null;
  secrets: WebhookSecret[];
  /** The first failed attempt since the last success (ISO), null while it delivers. */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

/** The fields of an endpoint a change may set (the rest stay). */
export type EndpointChanges = Partial<
  Pick<
    WebhookEndpoint,
    | 'url'
    | 'events'
    | 'description'
    | 'enabled'
    | 'disabled_reason'
    | 'secrets'
    | 'failing_since'
    | 'updated_at'
  >
>;

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event to one endpoint, with its attempts so far. */
export interface WebhookDelivery {
  /** `dlv_` + a time-ordered suffix: a later delivery has a larger id. */
  id: string;
  endpoint_id: string;
  /** The event's id: the `webhook-id` of every attempt, a retry's too. */
  event_id: string;
  type: string;
  /** The body sent, `{id, type, created_at, data}` as JSON. */
  payload: string;
  /** Attempts made. */
  attempt: number;
  status: DeliveryStatus;
  response_status: number | null;
  error: string | null;
  /** When the event was stored (ISO). */
  at: string;
  last_attempt_at: string | null;
  /** When the next attempt is due (ISO), while pending. */
  next_attempt_at: string | null;
}

/** What an attempt ended in, written over the delivery's fields. */
export type AttemptOutcome = Pick<
  WebhookDelivery,
  'attempt' | 'status' | 'response_status' | 'error' | 'last_attempt_at' | 'next_attempt_at'
>;

/**
 * Webhook endpoints and their outbox: deliveries stored before anything is sent, each attempt
 * claimed by one instance at a time (a lease), kept 30 days.
 */
export abstract class WebhookStore {
  /** Stores a new endpoint unless `max` exist already: false then. */
  abstract createEndpoint(endpoint: WebhookEndpoint, max: number): Promise<boolean>;
  abstract getEndpoint(id: string): Promise<WebhookEndpoint | undefined>;
  /** Every endpoint, oldest first. */
  abstract listEndpoints(): Promise<WebhookEndpoint[]>;
  /** Sets `changes` on the endpoint: the endpoint after, undefined when there is none. */
  abstract updateEndpoint(
    id: string,
    changes: EndpointChanges,
  ): Promise<WebhookEndpoint | undefined>;
  /**
   * Disables the endpoint if it is enabled (its receiver's 410, or days failing): true when this
   * call disabled it, false when it was disabled already or there is none. Of several instances
   * disabling it at once, one finds it enabled.
   */
  abstract disableEndpoint(id: string, reason: DisabledReason, at: string): Promise<boolean>;
  /** Removes the endpoint and its deliveries; false when there was none. */
  abstract deleteEndpoint(id: string): Promise<boolean>;

  /** Stores deliveries (pending, due at their `next_attempt_at`). */
  abstract enqueue(deliveries: WebhookDelivery[]): Promise<void>;
  /**
   * Up to `limit` pending deliveries due at `now`, claimed until `leaseUntil`: no other call
   * returns them before then, unless their attempt is recorded first.
   */
  abstract claimDue(now: string, leaseUntil: string, limit: number): Promise<WebhookDelivery[]>;
  /** Records an attempt's outcome and ends the claim (a pending one is due at its next time). */
  abstract recordAttempt(id: string, outcome: AttemptOutcome): Promise<void>;
  /** An endpoint's deliveries, newest first, older than delivery `before` when given. */
  abstract listDeliveries(
    endpointId: string,
    page: { before?: string; limit: number },
  ): Promise<WebhookDelivery[]>;
  abstract getDelivery(endpointId: string, id: string): Promise<WebhookDelivery | undefined>;
  /** A failed delivery pending again, due at `now` (its attempts kept): undefined when none. */
  abstract retryDelivery(
    endpointId: string,
    id: string,
    now: string,
  ): Promise<WebhookDelivery | undefined>;
  /** Deliveries pending (the outbox's depth). */
  abstract pendingCount(): Promise<number>;
  /** Forgets deliveries stored before `before` that are no longer pending; how many. */
  abstract purgeDeliveries(before: string): Promise<number>;

  /**
   * Sets `marker` unless it is set and unexpired at `now`, until `expiresAt`: true for the one
   * call, of every instance, that set it (a quota threshold crossed is announced once).
   */
  abstract markOnce(marker: string, now: string, expiresAt: string): Promise<boolean>;
}
