import { Counter, Gauge, Registry } from 'prom-client';

export type AttemptMetricOutcome = 'succeeded' | 'retrying' | 'failed' | 'backlog';

/**
 * The webhooks' metrics, on the application's registry (the one /metrics serves; a process
 * without one, the CLI, counts on a registry of its own that nothing reads): deliveries by event
 * type and outcome, the attempts under way by endpoint, and the outbox's depth read from the
 * store at each scrape.
 */
export class WebhookMetrics {
  private readonly attempts: Counter<'type' | 'outcome'>;
  private readonly inFlight: Gauge<'endpoint'>;

  constructor(registry: Registry | undefined, pending: () => Promise<number>) {
    const registers = [registry ?? new Registry()];
    this.attempts = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts by event type and outcome: succeeded, retrying (failed, another attempt scheduled) or failed (no attempt left, or the endpoint gone or disabled); backlog: failed unsent, its endpoint holding WEBHOOK_MAX_PENDING_PER_ENDPOINT pending (counted by the process that stored the event).',
      labelNames: ['type', 'outcome'],
      registers,
    });
    this.inFlight = new Gauge({
      name: 'webhook_attempts_in_flight',
      help: 'Webhook attempts this instance has under way, by endpoint: at most WEBHOOK_ENDPOINT_SHARE of WEBHOOK_CONCURRENCY an endpoint, one for an endpoint that failed 5 attempts in a row.',
      labelNames: ['endpoint'],
      registers,
    });
    new Gauge({
      name: 'webhook_outbox_pending',
      help: 'Webhook deliveries waiting to be sent or retried (the outbox, shared by every instance).',
      registers,
      async collect() {
        try {
          this.set(await pending());
        } catch {
          // The store is unreachable: /health/ready says so; the scrape keeps the last value.
        }
      },
    });
  }

  attempted(type: string, outcome: AttemptMetricOutcome): void {
    this.attempts.inc({ type, outcome });
  }

  /** An endpoint's attempts under way on this instance (none: its series goes). */
  underWay(endpoint: string, count: number): void {
    if (count > 0) this.inFlight.set({ endpoint }, count);
    else this.inFlight.remove({ endpoint });
  }
}
