import { Provider } from '@nestjs/common';
import { StoreMakers, storeProvider } from '../kernel/store/store.module';
import { RedisWebhookStore } from './redis-webhook.store';
import { SqliteWebhookStore } from './sqlite-webhook.store';
import { WebhookStore } from './webhook.store';

/** Webhook endpoints and their outbox, on the process's backend. */
export const WEBHOOK_STORE: StoreMakers<WebhookStore> = {
  sqlite: (sqlite) => new SqliteWebhookStore(sqlite),
  redis: (redis) => new RedisWebhookStore(redis),
};

export const WEBHOOK_STORES: Provider[] = [storeProvider(WebhookStore, WEBHOOK_STORE)];
