import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AuditService, type AuditActor } from '../audit';
import { Clock } from '../kernel/common/clock';
import { ApiError } from '../kernel/errors/api-error';
import { Settings, SETTINGS } from '../kernel/settings/settings';
import {
  EVENT_TYPE_NAMES,
  eventsRefusal,
  newEventId,
  subscribes,
  WEBHOOK_EVENT_TYPES,
  WebhookEvent,
  WebhookEventType,
} from './webhook-events';
import { webhooksHealth, type WebhooksHealth } from './webhook-health';
import { WebhookMetrics } from './webhook-metrics';
import { SecretBox } from '../kernel/common/secret-box';
import { newSecret, rotatedSecrets } from './webhook-secrets';
import { Resolver, resolveTarget, urlRefusal } from './webhook-target';
import { WebhookDelivery, WebhookEndpoint, WebhookStore } from './webhook.store';
import type {
  CreatedWebhook,
  CreateWebhookInput,
  RotatedWebhookSecret,
  UpdateWebhookInput,
  WebhookDeliveryPage,
  WebhookDeliveryView,
  WebhookEndpointView,
  WebhookEventTypes,
} from './webhooks.dto';
import { MAX_SECRET_GRACE_SECONDS } from './webhooks.dto';
import { auditedChanges, deliveryView, newDelivery, shownUrl, toView } from './webhook-views';

/** How names are resolved to addresses before a target is checked: the tests' seam. */
export const WEBHOOK_RESOLVER = Symbol('WEBHOOK_RESOLVER');

/** At most this many endpoints. */
export const MAX_ENDPOINTS = 100;
/** Deliveries are kept this many days. */
export const DELIVERIES_KEEP_DAYS = 30;

export const WEBHOOK_NOT_FOUND = 'Webhook endpoint not found';

/**
 * Webhook endpoints (who receives which events, signed by which secret) and the events
 * themselves: published into the store's outbox, never sent on the request's path (the
 * WebhookDeliverer sends them).
 */
@Injectable()
export class WebhooksService {
  private readonly logger = new Logger('Webhooks');
  private readonly secrets: SecretBox;

  constructor(
    private readonly store: WebhookStore,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: Settings,
    @Inject(WEBHOOK_RESOLVER) private readonly resolver: Resolver,
    private readonly metrics: WebhookMetrics,
  ) {
    this.secrets = new SecretBox(settings.webhooks.secretKey);
  }

  eventTypes(): WebhookEventTypes {
    return {
      event_types: EVENT_TYPE_NAMES.map((type) => ({
        type,
        description: WEBHOOK_EVENT_TYPES[type].description,
        data_schema: WEBHOOK_EVENT_TYPES[type].data,
      })),
    };
  }

  /** What doctor reports of the endpoints and the outbox (WebhooksHealth). */
  async health(): Promise<WebhooksHealth> {
    const endpoints = await this.store.listEndpoints();
    const { maxPendingPerEndpoint } = this.settings.webhooks;
    const pending = await this.store.pendingCount();
    return webhooksHealth(endpoints, this.clock.now(), maxPendingPerEndpoint, pending);
  }

  async list(): Promise<WebhookEndpointView[]> {
    const now = this.clock.now();
    return (await this.store.listEndpoints()).map((endpoint) => toView(endpoint, now));
  }

  async get(id: string): Promise<WebhookEndpointView> {
    return toView(await this.endpoint(id), this.clock.now());
  }

  async create(input: CreateWebhookInput, actor: AuditActor): Promise<CreatedWebhook> {
    const url = await this.checkedUrl(input.url);
    const events = this.checkedEvents(input.events);
    const now = this.clock.now().toISOString();
    const secret = newSecret();
    const endpoint: WebhookEndpoint = {
      id: `wh_${randomBytes(8).toString('hex')}`,
      url,
      events,
      description: input.description ?? null,
      enabled: true,
      disabled_reason: null,
      secrets: [{ value: this.secrets.seal(secret), expires_at: null }],
      failing_since: null,
      consecutive_failures: 0,
      backlog_failed: 0,
      backlog_failed_at: null,
      created_at: now,
      updated_at: now,
    };
    if (!(await this.store.createEndpoint(endpoint, MAX_ENDPOINTS))) {
      throw new ApiError(409, `At most ${MAX_ENDPOINTS} webhook endpoints: delete one first.`);
    }
    await this.audit.record(actor, 'webhook.created', endpoint.id, { url: shownUrl(url), events });
    return { ...toView(endpoint, this.clock.now()), secret };
  }

  async update(
    id: string,
    input: UpdateWebhookInput,
    actor: AuditActor,
  ): Promise<WebhookEndpointView> {
    const before = await this.endpoint(id);
    const changes: Partial<WebhookEndpoint> = {};
    if (input.url !== undefined) changes.url = await this.checkedUrl(input.url);
    if (input.events !== undefined) changes.events = this.checkedEvents(input.events);
    const { description } = input;
    if (description !== undefined) changes.description = description;
    if (input.enabled !== undefined) {
      changes.enabled = input.enabled;
      changes.disabled_reason = input.enabled ? null : 'operator';
      if (input.enabled) Object.assign(changes, { failing_since: null, consecutive_failures: 0 });
    }
    const diff = auditedChanges(before, changes);
    if (Object.keys(diff).length === 0) return toView(before, this.clock.now());
    const after = await this.store.updateEndpoint(id, {
      ...changes,
      updated_at: this.clock.now().toISOString(),
    });
    if (!after) throw new ApiError(404, WEBHOOK_NOT_FOUND);
    await this.audit.record(actor, 'webhook.updated', id, diff);
    return toView(after, this.clock.now());
  }

  async remove(id: string, actor: AuditActor): Promise<void> {
    if (!(await this.store.deleteEndpoint(id))) throw new ApiError(404, WEBHOOK_NOT_FOUND);
    await this.audit.record(actor, 'webhook.deleted', id, {});
  }

  /**
   * A new secret; the current one keeps signing beside it for `graceSeconds` (Standard Webhooks
   * allows several signatures in one header), and those rotated out before for their own grace;
   * a grace of 0 ends every grace (rotatedSecrets).
   */
  async rotateSecret(
    id: string,
    graceSeconds: number | undefined,
    actor: AuditActor,
  ): Promise<RotatedWebhookSecret> {
    const before = await this.endpoint(id);
    const grace = graceSeconds ?? MAX_SECRET_GRACE_SECONDS;
    const now = this.clock.now();
    const secret = newSecret();
    const rotated = rotatedSecrets(before.secrets, this.secrets.seal(secret), now, grace);
    await this.store.updateEndpoint(id, {
      secrets: rotated.secrets,
      updated_at: now.toISOString(),
    });
    await this.audit.record(actor, 'webhook.secret_rotated', id, { grace_seconds: grace });
    return { secret, previous_secret_expires_at: rotated.previousUntil };
  }

  /** The secrets that sign an attempt at `now`: the current one, and previous ones in grace. */
  signingSecrets(endpoint: WebhookEndpoint, now: Date): string[] {
    const at = now.toISOString();
    return endpoint.secrets
      .filter((secret) => secret.expires_at === null || secret.expires_at > at)
      .map((secret) => this.secrets.open(secret.value));
  }

  async deliveries(
    id: string,
    before: string | undefined,
    limit: number,
  ): Promise<WebhookDeliveryPage> {
    await this.endpoint(id);
    const page = await this.store.listDeliveries(id, { before, limit: limit + 1 });
    const shown = page.slice(0, limit);
    const next = page.length > limit ? shown[shown.length - 1].id : null;
    return { deliveries: shown.map(deliveryView), next_before: next, next_cursor: next };
  }

  /** Sends a failed delivery again, as it was (its `webhook-id` too). */
  async retry(id: string, deliveryId: string): Promise<WebhookDeliveryView> {
    await this.endpoint(id);
    const found = await this.store.getDelivery(id, deliveryId);
    if (!found) throw new ApiError(404, 'Webhook delivery not found');
    const again = await this.store.retryDelivery(id, deliveryId, this.clock.now().toISOString());
    if (!again) {
      throw new ApiError(
        409,
        `Only a failed delivery can be retried; this one is ${found.status}.`,
      );
    }
    return deliveryView(again);
  }

  /** A `webhook.test` event to this endpoint alone, even if it does not subscribe to it. */
  async test(id: string): Promise<WebhookDeliveryView> {
    const endpoint = await this.endpoint(id);
    if (!endpoint.enabled) {
      throw new ApiError(
        409,
        'The webhook endpoint is disabled: enable it first (PATCH enabled: true).',
      );
    }
    const [delivery] = await this.enqueue(
      this.event('webhook.test', {
        endpoint_id: id,
        message: 'A test event from the tool invocation service.',
      }),
      [endpoint],
    );
    return deliveryView(delivery);
  }

  /**
   * Stores an event for every enabled endpoint subscribed to its type. What the caller awaits is
   * the outbox's write alone; a failure to store it is logged, never the caller's failure.
   */
  async publish(type: WebhookEventType, data: Record<string, unknown>): Promise<void> {
    try {
      const endpoints = (await this.store.listEndpoints()).filter(
        (endpoint) => endpoint.enabled && subscribes(endpoint.events, type),
      );
      if (endpoints.length > 0) await this.enqueue(this.event(type, data), endpoints);
    } catch (error) {
      this.logger.error({ err: error }, `Webhook event ${type} not stored`);
    }
  }

  private event(type: WebhookEventType, data: Record<string, unknown>): WebhookEvent {
    return { id: newEventId(), type, created_at: this.clock.now().toISOString(), data };
  }

  private async enqueue(
    event: WebhookEvent,
    endpoints: WebhookEndpoint[],
  ): Promise<WebhookDelivery[]> {
    const now = this.clock.now();
    const deliveries = endpoints.map((endpoint) => newDelivery(event, endpoint.id, now));
    const { maxPendingPerEndpoint } = this.settings.webhooks;
    const failed = await this.store.enqueue(deliveries, maxPendingPerEndpoint, now.toISOString());
    for (const delivery of failed) this.metrics.attempted(delivery.type, 'backlog');
    return deliveries;
  }

  private async endpoint(id: string): Promise<WebhookEndpoint> {
    const found = await this.store.getEndpoint(id);
    if (!found) throw new ApiError(404, WEBHOOK_NOT_FOUND);
    return found;
  }

  /** The URL, or a 400 saying why it cannot be a target (its shape, or where its name resolves). */
  private async checkedUrl(url: string): Promise<string> {
    const { allowPrivate } = this.settings.webhooks;
    const refusal = urlRefusal(url, allowPrivate);
    if (refusal) throw new ApiError(400, refusal);
    const target = await resolveTarget(url, allowPrivate, this.resolver);
    if (!target.ok) throw new ApiError(400, target.refusal);
    return url;
  }

  private checkedEvents(events: string[]): string[] {
    const refusal = eventsRefusal(events);
    if (refusal) throw new ApiError(400, refusal);
    return events.includes('*') ? ['*'] : [...new Set(events)];
  }
}
