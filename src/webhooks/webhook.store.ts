/** A signing secret of an endpoint: the current one, and rotated-out ones while their grace runs. */
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
  /** Attempts failed in a row since the last success. */
  consecutive_failures: number;
  /** Deliveries failed unsent because too many were pending (WEBHOOK_MAX_PENDING_PER_ENDPOINT). */
  backlog_failed: number;
  /** When the last of those failed (ISO), null before any. */
  backlog_failed_at: string | null;
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
    | 'consecutive_failures'
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

/** An endpoint's failing spell: since when, and how many attempts in a row. */
export type FailingSpell = Pick<WebhookEndpoint, 'failing_since' | 'consecutive_failures'>;

/** The error of a delivery failed unsent because its endpoint had too many pending. */
export const BACKLOG_ERROR = 'backlog';

/** A delivery failed by the backlog's cap: which, of which type, to which endpoint. */
export type BackloggedDelivery = Pick<WebhookDelivery, 'id' | 'type' | 'endpoint_id'>;

/** What one claim may take: of every endpoint in turn, within its room. */
export interface ClaimLimits {
  /** Deliveries in all: the instance's free slots. */
  total: number;
  /** An endpoint's attempts under way at once at most (its share), those under way included. */
  perEndpoint: number;
  /** An endpoint whose last attempts failed, this many in a row or more, has one at most. */
  failingAfter: number;
  /** The instance's attempts under way, by endpoint id. */
  inFlight: ReadonlyMap<string, number>;
  /** The endpoint the previous claim ended with: this one starts with the next. */
  after?: string;
}

/** How many more deliveries of an endpoint a claim may take. */
export function roomOf(
  endpoint: Pick<FailingSpell, 'consecutive_failures'> & { id: string },
  limits: ClaimLimits,
): number {
  const most = endpoint.consecutive_failures >= limits.failingAfter ? 1 : limits.perEndpoint;
  return most - (limits.inFlight.get(endpoint.id) ?? 0);
}

/**
 * The order a claim serves the endpoints in: those with fewer attempts under way first (a healthy
 * endpoint's first delivery before a busy one's next), each tie from the one after `after` (the
 * first when it is not there) round the list.
 */
export function claimOrder<T extends { id: string }>(endpoints: T[], limits: ClaimLimits): T[] {
  const at = endpoints.findIndex((endpoint) => endpoint.id === limits.after) + 1;
  const busy = (endpoint: T) => limits.inFlight.get(endpoint.id) ?? 0;
  return [...endpoints.slice(at), ...endpoints.slice(0, at)].sort((x, y) => busy(x) - busy(y));
}

/** Takes the first of each list in turn, then the second of each, …, `total` at most. */
export function roundRobin<T>(lists: T[][], total: number): T[] {
  const taken: T[] = [];
  for (let depth = 0; taken.length < total; depth++) {
    const layer = lists.filter((list) => depth < list.length).map((list) => list[depth]);
    if (layer.length === 0) break;
    taken.push(...layer.slice(0, total - taken.length));
  }
  return taken;
}

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

  /**
   * Stores deliveries (pending, due at their `next_attempt_at`), those of existing endpoints; then
   * of each endpoint holding more than `maxPending` pending, the oldest pending fail unsent (error
   * "backlog", counted on the endpoint with `at`). The deliveries failed so.
   */
  abstract enqueue(
    deliveries: WebhookDelivery[],
    maxPending: number,
    at: string,
  ): Promise<BackloggedDelivery[]>;
  /**
   * Pending deliveries due at `now`, claimed until `leaseUntil`: no other call returns them before
   * then, unless their attempt is recorded first. Taken round-robin over the endpoints (their
   * first due in turn, then their second, …), each within its room (roomOf), `total` at most, in
   * the order taken; the endpoints' failing spells are read in the same step.
   */
  abstract claimDue(
    now: string,
    leaseUntil: string,
    limits: ClaimLimits,
  ): Promise<WebhookDelivery[]>;
  /**
   * Records an attempt's outcome and ends the claim (a pending one is due at its next time). An
   * attempt that was made (`sent`) counts for its endpoint in the same write: a success ends its
   * failing spell, a failure adds to it. The endpoint's spell after, when sent and it exists.
   */
  abstract recordAttempt(
    delivery: Pick<WebhookDelivery, 'id' | 'endpoint_id'>,
    outcome: AttemptOutcome,
    sent: boolean,
  ): Promise<FailingSpell | undefined>;
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
   * Moves the pending deliveries an earlier version's layout holds into this one's (Redis's one
   * due set of every endpoint before endpoints had their own): how many. Run at a sender's start.
   */
  abstract moveEarlierOutbox(): Promise<number>;

  /**
   * Sets `marker` unless it is set and unexpired at `now`, until `expiresAt`: true for the one
   * call, of every instance, that set it (a quota threshold crossed is announced once).
   */
  abstract markOnce(marker: string, now: string, expiresAt: string): Promise<boolean>;
}
