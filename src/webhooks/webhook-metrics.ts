import { Counter, Gauge, Registry } from 'prom-client';

export type AttemptMetricOutcome = 'succeeded' | 'retrying' | 'failed';

/**
 * The webhooks' metrics, on the application's registry (the one /metrics serves): attempts by
 * event type and outcome, and the outbox's depth read from the store at each scrape.
 */
export class WebhookMetrics {
  private readonly attempts: Counter<'type' | 'outcome'>;

  constructor(registry: Registry, pending: () => Promise<number>) {
    const registers = [registry];
    this.attempts = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts by event type and outcome: succeeded, retrying (failed, another attempt scheduled) or failed (no attempt left, or the endpoint gone or disabled).',
      labelNames: ['type', 'outcome'],
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
}
