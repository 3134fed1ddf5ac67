import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { AuditService, SYSTEM_ACTOR } from '../audit';
import { Clock } from '../kernel/common/clock';
import { Registry } from 'prom-client';
import { WebhookMetrics } from './webhook-metrics';
import { Settings, SETTINGS } from '../kernel/settings/settings';
import { signedHeaders } from './webhook-secrets';
import { FAILING_DISABLE_MS, retryDelayMs, RETRY_SCHEDULE_SECONDS } from './webhook-schedule';
import { postToTarget, Resolver, TargetAnswer } from './webhook-target';
import {
  AttemptOutcome,
  DisabledReason,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookStore,
} from './webhook.store';
import { DELIVERIES_KEEP_DAYS, WEBHOOK_RESOLVER, WebhooksService } from './webhooks.service';

/** A receiver has this long to answer an attempt. */
export const ATTEMPT_TIMEOUT_MS = 15_000;
/** A claim lasts this long: past it, another instance may take the delivery (this one stopped). */
const LEASE_MS = 60_000;
/** Attempts an instance has in flight at most: past it, it claims no more until some end. */
const MAX_IN_FLIGHT = 20;
/** Finished deliveries older than the kept days are forgotten this often. */
const PURGE_EVERY_MS = 3_600_000;

/**
 * Sends what the outbox holds: every poll, the deliveries due are claimed (a lease, so that one
 * instance of several sends each attempt), signed, posted to their endpoint's checked address,
 * and their outcome recorded: succeeded on a 2xx, else retried on the schedule, then failed.
 */
@Injectable()
export class WebhookDeliverer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private timer?: NodeJS.Timeout;
  /** A poll claiming deliveries, while it does. */
  private claiming?: Promise<void>;
  /** Attempts under way, each on its own: a slow receiver holds its own, never a poll. */
  private readonly inFlight = new Set<Promise<void>>();
  private purgedAt = 0;
  private readonly schedule: readonly number[];
  private readonly metrics: WebhookMetrics;

  constructor(
    private readonly store: WebhookStore,
    private readonly webhooks: WebhooksService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: Settings,
    @Inject(WEBHOOK_RESOLVER) private readonly resolver: Resolver,
    // The application's registry (MetricsModule's, global): what /metrics serves.
    registry: Registry,
  ) {
    this.schedule = settings.webhooks.retrySchedule ?? RETRY_SCHEDULE_SECONDS;
    this.metrics = new WebhookMetrics(registry, () => store.pendingCount());
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.poll(), this.settings.webhooks.pollMs);
    this.timer.unref();
    this.poll();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.claiming;
    await Promise.all(this.inFlight);
  }

  /** One poll at a time; the attempts it starts run on while the next polls claim more. */
  private poll(): void {
    if (this.claiming) return;
    this.claiming = this.round()
      .catch((error: unknown) => this.logger.error({ err: error }, 'Webhook deliveries failed'))
      .finally(() => (this.claiming = undefined));
  }

  private async round(): Promise<void> {
    const now = this.clock.now();
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    const due =
      room > 0
        ? await this.store.claimDue(
            now.toISOString(),
            new Date(now.getTime() + LEASE_MS).toISOString(),
            room,
          )
        : [];
    if (due.length > 0) {
      const endpoints = new Map((await this.store.listEndpoints()).map((e) => [e.id, e]));
      for (const delivery of due) this.start(delivery, endpoints.get(delivery.endpoint_id));
    }
    if (now.getTime() - this.purgedAt >= PURGE_EVERY_MS) {
      this.purgedAt = now.getTime();
      const before = new Date(now.getTime() - DELIVERIES_KEEP_DAYS * 86_400_000).toISOString();
      await this.store.purgeDeliveries(before);
    }
  }

  private start(delivery: WebhookDelivery, endpoint: WebhookEndpoint | undefined): void {
    const attempt: Promise<void> = this.attempt(delivery, endpoint)
      .catch((error: unknown) => this.logger.error({ err: error }, 'A webhook attempt failed'))
      .finally(() => this.inFlight.delete(attempt));
    this.inFlight.add(attempt);
  }

  private async attempt(
    delivery: WebhookDelivery,
    endpoint: WebhookEndpoint | undefined,
  ): Promise<void> {
    const started = this.clock.now();
    if (!endpoint?.enabled) {
      await this.store.recordAttempt(delivery.id, {
        attempt: delivery.attempt,
        status: 'failed',
        response_status: null,
        error: 'The endpoint is disabled.',
        last_attempt_at: delivery.last_attempt_at,
        next_attempt_at: null,
      });
      this.metrics.attempted(delivery.type, 'failed');
      return;
    }
    const headers = signedHeaders(
      delivery.event_id,
      started,
      delivery.payload,
      this.webhooks.signingSecrets(endpoint, started),
    );
    const answer = await postToTarget(endpoint.url, headers, delivery.payload, {
      allowPrivate: this.settings.webhooks.allowPrivate,
      resolver: this.resolver,
      timeoutMs: ATTEMPT_TIMEOUT_MS,
    });
    const outcome = this.outcome(delivery, answer, started);
    await this.store.recordAttempt(delivery.id, outcome);
    this.metrics.attempted(
      delivery.type,
      outcome.status === 'pending' ? 'retrying' : outcome.status,
    );
    await this.afterAttempt(endpoint, answer, outcome, started);
  }

  private outcome(delivery: WebhookDelivery, answer: TargetAnswer, at: Date): AttemptOutcome {
    const attempt = delivery.attempt + 1;
    const status = answer.status ?? null;
    const base = { attempt, response_status: status, last_attempt_at: at.toISOString() };
    if (status !== null && status >= 200 && status < 300) {
      return { ...base, status: 'succeeded', error: null, next_attempt_at: null };
    }
    const error =
      answer.error ??
      (status === 410 ? 'answered 410 Gone: the endpoint is disabled' : `answered ${status}`);
    // 410: the receiver says it is gone for good.
    const delay =
      status === 410
        ? undefined
        : retryDelayMs(
            attempt,
            this.schedule,
            honoured(status) ? answer.retryAfterSeconds : undefined,
          );
    if (delay === undefined) return { ...base, status: 'failed', error, next_attempt_at: null };
    return {
      ...base,
      status: 'pending',
      error,
      next_attempt_at: new Date(at.getTime() + delay).toISOString(),
    };
  }

  /** A success ends the endpoint's failing spell; a 410, or 5 days of failures, disables it. */
  private async afterAttempt(
    endpoint: WebhookEndpoint,
    answer: TargetAnswer,
    outcome: AttemptOutcome,
    at: Date,
  ): Promise<void> {
    if (outcome.status === 'succeeded') {
      if (endpoint.failing_since !== null) {
        await this.store.updateEndpoint(endpoint.id, { failing_since: null });
      }
      return;
    }
    if (answer.status === 410) return this.disable(endpoint, 'gone');
    if (endpoint.failing_since === null) {
      endpoint.failing_since = at.toISOString();
      await this.store.updateEndpoint(endpoint.id, { failing_since: endpoint.failing_since });
    } else if (at.getTime() - Date.parse(endpoint.failing_since) >= FAILING_DISABLE_MS) {
      await this.disable(endpoint, 'failing');
    }
  }

  /**
   * Disables an endpoint on its own (its receiver said 410 Gone, or it failed every delivery for
   * 5 days): audited as the service's act.
   */
  private async disable(
    endpoint: WebhookEndpoint,
    reason: Exclude<DisabledReason, 'operator'>,
  ): Promise<void> {
    if (!endpoint.enabled) return;
    // The round's other attempts to it see it disabled; an attempt of another round, or of another
    // instance, finds it disabled in the store: one audit entry, one log line.
    endpoint.enabled = false;
    const at = this.clock.now().toISOString();
    if (!(await this.store.disableEndpoint(endpoint.id, reason, at))) return;
    await this.audit.record(SYSTEM_ACTOR, 'webhook.disabled', endpoint.id, { reason });
    this.logger.warn(`Webhook endpoint ${endpoint.id} disabled: ${reason}`);
  }
}

/** The statuses whose Retry-After is read: rate limited or unavailable for a while. */
function honoured(status: number | null): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}
