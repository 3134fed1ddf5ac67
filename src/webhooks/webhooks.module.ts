import { Module } from '@nestjs/common';
import { Registry } from 'prom-client';
import { LimitsModule } from '../limits';
import { WebhookMetrics } from './webhook-metrics';
import { systemResolver } from './webhook-target';
import { WebhookDeliverer } from './webhook-deliverer';
import { WebhookStore } from './webhook.store';
import { WEBHOOK_STORES } from './webhooks.stores';
import { QuotaThresholds } from './quota-thresholds';
import { WEBHOOK_RESOLVER, WebhooksService } from './webhooks.service';

/** Webhook endpoints and the events published to them (every process that changes keys). */
@Module({
  // The clock.
  imports: [LimitsModule],
  providers: [
    ...WEBHOOK_STORES,
    WebhooksService,
    QuotaThresholds,
    { provide: WEBHOOK_RESOLVER, useValue: systemResolver },
    {
      provide: WebhookMetrics,
      // The application's registry (MetricsModule's, global) where the process serves /metrics.
      useFactory: (store: WebhookStore, registry?: Registry) =>
        new WebhookMetrics(registry, () => store.pendingCount()),
      inject: [WebhookStore, { token: Registry, optional: true }],
    },
  ],
  exports: [WebhooksService, QuotaThresholds, ...WEBHOOK_STORES, WEBHOOK_RESOLVER, WebhookMetrics],
})
export class WebhooksModule {}

/** The sender of the outbox: in the server only (the CLI and stdio publish, the server delivers). */
@Module({
  imports: [WebhooksModule, LimitsModule],
  providers: [WebhookDeliverer],
})
export class WebhookDeliveryModule {}
