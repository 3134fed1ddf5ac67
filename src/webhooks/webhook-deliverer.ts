import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { AuditService, SYSTEM_ACTOR } from '../audit';
import { Clock } from '../kernel/common/clock';
import { Periodic } from '../kernel/common/periodic';
import { Settings, SETTINGS } from '../kernel/settings/settings';
import { WebhookMetrics } from './webhook-metrics';
import { signedHeaders } from './webhook-secrets';
import { attemptOutcome, FAILING_DISABLE_MS, RETRY_SCHEDULE_SECONDS } from './webhook-schedule';
import { DeliverySlots } from './webhook-slots';
import { postToTarget, Resolver, TargetAnswer } from './webhook-target';
import {
  AttemptOutcome,
  DisabledReason,
  FailingSpell,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookStore,
} from './webhook.store';
import { DELIVERIES_KEEP_DAYS, WEBHOOK_RESOLVER, WebhooksService } from './webhooks.service';

/** A claim lasts at least this long: past it, another instance may take the delivery (this one stopped). */
const LEASE_MS = 60_000;
/** Finished deliveries older than the kept days are forgotten this often. */
const PURGE_EVERY_MS = 3_600_000;

/**
 * Sends what the outbox holds: every poll, and as soon as an attempt ends, the deliveries due are
 * claimed (a lease, so that one instance of several sends each attempt) within the instance's free
 * slots, each endpoint within its share (DeliverySlots), signed, posted to their endpoint's checked
 * address, and their outcome recorded: succeeded on a 2xx, else retried on the schedule, then
 * failed.
 */
@Injectable()
export class WebhookDeliverer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  /** The polls claiming deliveries, one at a time. */
  private readonly polls: Periodic;
  /** An attempt ended while a poll claimed: poll again once it is done. */
  private wanted = false;
  /** The next poll asked for by an attempt's end (after the I/O already waiting). */
  private soon?: NodeJS.Immediate;
  /** Attempts under way, each on its own: a slow receiver holds its own, never a poll. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly slots: DeliverySlots;
  private purgedAt = 0;
  private readonly schedule: readonly number[];
  private readonly leaseMs: number;

  constructor(
    private readonly store: WebhookStore,
    private readonly webhooks: WebhooksService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: Settings,
    @Inject(WEBHOOK_RESOLVER) private readonly resolver: Resolver,
    private readonly metrics: WebhookMetrics,
  ) {
    this.schedule = settings.webhooks.retrySchedule ?? RETRY_SCHEDULE_SECONDS;
    // Longer than any attempt: a claim lapses only when its instance is gone.
    this.leaseMs = Math.max(LEASE_MS, 2 * settings.webhooks.timeoutMs);
    this.slots = new DeliverySlots(settings.webhooks, metrics);
    this.polls = new Periodic({
      everyMs: settings.webhooks.pollMs,
      // An attempt that ended meanwhile asks for the next poll at once, not at the next tick.
      work: () =>
        this.round().finally(() => {
          if (this.wanted) this.pollSoon();
        }),
      onError: (error) => this.logger.error({ err: error }, 'Webhook deliveries failed'),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.moveEarlierOutbox();
    this.polls.start();
  }

  /** What an earlier version left in its layout of the outbox, moved (the next start tries again). */
  private async moveEarlierOutbox(): Promise<void> {
    try {
      const moved = await this.store.moveEarlierOutbox();
      if (moved > 0)
        this.logger.log(`Moved ${moved} webhook deliveries into their endpoints' outboxes`);
    } catch (error) {
      this.logger.error(
        { err: error },
        "Webhook deliveries of an earlier version's outbox not moved",
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const polls = this.polls.stop();
    clearImmediate(this.soon);
    await polls;
    await Promise.all(this.inFlight);
  }

  /** One poll at a time; the attempts it starts run on while the next polls claim more. */
  private poll(): void {
    if (this.polls.busy) {
      this.wanted = true;
      return;
    }
    void this.polls.runNow();
  }

  /** A poll once the I/O waiting has run: a freed slot is used without waiting for the timer. */
  private pollSoon(): void {
    this.wanted = false;
    if (this.polls.stopping || this.soon) return;
    this.soon = setImmediate(() => {
      this.soon = undefined;
      this.poll();
    });
  }

  private async round(): Promise<void> {
    const now = this.clock.now();
    const limits = this.slots.limits();
    const due = limits
      ? await this.store.claimDue(
          now.toISOString(),
          new Date(now.getTime() + this.leaseMs).toISOString(),
          limits,
        )
      : [];
    this.slots.claimed(due);
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
    this.slots.take(delivery.endpoint_id);
    const attempt: Promise<void> = this.attempt(delivery, endpoint)
      .catch((error: unknown) => this.logger.error({ err: error }, 'A webhook attempt failed'))
      .finally(() => {
        this.inFlight.delete(attempt);
        this.slots.give(delivery.endpoint_id);
        this.pollSoon();
      });
    this.inFlight.add(attempt);
  }

  private async attempt(
    delivery: WebhookDelivery,
    endpoint: WebhookEndpoint | undefined,
  ): Promise<void> {
    const started = this.clock.now();
    if (!endpoint?.enabled) {
      const unsent: AttemptOutcome = {
        attempt: delivery.attempt,
        status: 'failed',
        response_status: null,
        error: 'The endpoint is disabled.',
        last_attempt_at: delivery.last_attempt_at,
        next_attempt_at: null,
      };
      await this.store.recordAttempt(delivery, unsent, false);
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
      timeoutMs: this.settings.webhooks.timeoutMs,
    });
    const outcome = attemptOutcome(delivery, answer, started, this.schedule);
    const spell = await this.store.recordAttempt(delivery, outcome, true);
    this.metrics.attempted(
      delivery.type,
      outcome.status === 'pending' ? 'retrying' : outcome.status,
    );
    if (outcome.status !== 'succeeded') await this.afterFailure(endpoint, answer, spell, started);
  }

  /** A 410, or 5 days of failures since the endpoint's spell began, disables it. */
  private async afterFailure(
    endpoint: WebhookEndpoint,
    answer: TargetAnswer,
    spell: FailingSpell | undefined,
    at: Date,
  ): Promise<void> {
    if (answer.status === 410) return this.disable(endpoint, 'gone');
    const since = spell?.failing_since;
    if (since && at.getTime() - Date.parse(since) >= FAILING_DISABLE_MS) {
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
