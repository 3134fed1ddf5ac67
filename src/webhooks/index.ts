/**
 * The webhooks feature's public entry: what the other features, the transports and the processes
 * may use of it. Nothing else of this folder is imported from outside it.
 */
export { eventActor, WEBHOOK_EVENT_TYPES, EVENT_TYPE_NAMES } from './webhook-events';
export type { WebhookEvent, WebhookEventType } from './webhook-events';
export {
  CreatedWebhook,
  CreateWebhookInput,
  RotatedWebhookSecret,
  RotateWebhookSecretInput,
  UpdateWebhookInput,
  WebhookDeliveryPage,
  WebhookDeliveryView,
  WebhookEndpointView,
  WebhookEventTypes,
  WebhookList,
} from './webhooks.dto';
export { WebhookDeliveryModule, WebhooksModule } from './webhooks.module';
export { MAX_ENDPOINTS, WEBHOOK_RESOLVER, WebhooksService } from './webhooks.service';
export type { Resolver } from './webhook-target';
export { QuotaThresholds } from './quota-thresholds';
export { resolveTarget, systemResolver, urlRefusal } from './webhook-target';
