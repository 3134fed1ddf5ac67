import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits';
import { systemResolver } from './webhook-target';
import { WebhookDeliverer } from './webhook-deliverer';
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
  ],
  exports: [WebhooksService, QuotaThresholds, ...WEBHOOK_STORES, WEBHOOK_RESOLVER],
})
export class WebhooksModule {}

/** The sender of the outbox: in the server only (the CLI and stdio publish, the server delivers). */
@Module({
  imports: [WebhooksModule, LimitsModule],
  providers: [WebhookDeliverer],
})
export class WebhookDeliveryModule {}
