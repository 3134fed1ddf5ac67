import type { WebhookSettings } from '../kernel/settings/webhook.settings';
import type { WebhookMetrics } from './webhook-metrics';
import { FAILING_AFTER_ATTEMPTS } from './webhook-schedule';
import type { ClaimLimits, WebhookDelivery } from './webhook.store';

/** The slots one endpoint holds at most: its share of the instance's, at least one. */
export function endpointSlots(settings: Pick<WebhookSettings, 'concurrency' | 'endpointShare'>) {
  return Math.max(1, Math.floor(settings.concurrency * settings.endpointShare));
}

/**
 * An instance's delivery slots (WEBHOOK_CONCURRENCY): which endpoint each attempt under way holds,
 * and what the next claim may take of each. An endpoint never holds more than its share, whatever
 * the others do: a slot cannot be taken back from an attempt once sent, so a share lent to an
 * endpoint alone would be held, by a hung receiver, when another endpoint's event comes.
 */
export class DeliverySlots {
  private readonly held = new Map<string, number>();
  private total = 0;
  /** The endpoint the last claim ended with: the next one starts after it. */
  private last?: string;
  private readonly perEndpoint: number;

  constructor(
    private readonly settings: Pick<WebhookSettings, 'concurrency' | 'endpointShare'>,
    private readonly metrics: WebhookMetrics,
  ) {
    this.perEndpoint = endpointSlots(settings);
  }

  /** What a claim may take now, or undefined when every slot is held. */
  limits(): ClaimLimits | undefined {
    const free = this.settings.concurrency - this.total;
    if (free <= 0) return undefined;
    return {
      total: free,
      perEndpoint: this.perEndpoint,
      failingAfter: FAILING_AFTER_ATTEMPTS,
      inFlight: new Map(this.held),
      after: this.last,
    };
  }

  /** A claim's deliveries, each about to hold a slot: the next claim starts after the last. */
  claimed(deliveries: WebhookDelivery[]): void {
    const last = deliveries.at(-1);
    if (last) this.last = last.endpoint_id;
  }

  take(endpointId: string): void {
    this.count(endpointId, 1);
  }

  give(endpointId: string): void {
    this.count(endpointId, -1);
  }

  private count(endpointId: string, change: number): void {
    const now = (this.held.get(endpointId) ?? 0) + change;
    if (now > 0) this.held.set(endpointId, now);
    else this.held.delete(endpointId);
    this.total += change;
    this.metrics.underWay(endpointId, now);
  }
}
