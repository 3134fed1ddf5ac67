import type { ParsedEnvironment } from './environment.schema';
import { SettingsError } from './settings.error';

/** Webhook deliveries (docs/webhooks.md). */
export interface WebhookSettings {
  /** WEBHOOK_ALLOW_PRIVATE: loopback and private receivers and http:// allowed. */
  allowPrivate: boolean;
  /** SECRETS_KEY (or its alias WEBHOOK_SECRET_KEY): secrets sealed at rest with a key derived from it. */
  secretKey?: string;
  /** Seconds before each retry (WEBHOOK_RETRY_SCHEDULE; Svix's by default). */
  retrySchedule?: number[];
  /** How often an instance looks for deliveries due. */
  pollMs: number;
  /** WEBHOOK_CONCURRENCY: attempts an instance has under way at most (its slots). */
  concurrency: number;
  /** WEBHOOK_ENDPOINT_SHARE: of those slots, the share one endpoint holds at most (at least one). */
  endpointShare: number;
  /** WEBHOOK_TIMEOUT_MS: a receiver has this long to answer an attempt. */
  timeoutMs: number;
  /** WEBHOOK_MAX_PENDING_PER_ENDPOINT: past it, an endpoint's oldest pending deliveries fail. */
  maxPendingPerEndpoint: number;
}

export function webhookSettingsFrom(parsed: ParsedEnvironment): WebhookSettings {
  return {
    allowPrivate: parsed.WEBHOOK_ALLOW_PRIVATE,
    secretKey: secretsKeyOf(parsed),
    retrySchedule: parsed.WEBHOOK_RETRY_SCHEDULE,
    pollMs: parsed.WEBHOOK_POLL_MS,
    concurrency: parsed.WEBHOOK_CONCURRENCY,
    endpointShare: parsed.WEBHOOK_ENDPOINT_SHARE,
    timeoutMs: parsed.WEBHOOK_TIMEOUT_MS,
    maxPendingPerEndpoint: parsed.WEBHOOK_MAX_PENDING_PER_ENDPOINT,
  };
}

/**
 * SECRETS_KEY, or WEBHOOK_SECRET_KEY (its alias, the name of before): both set and different is a
 * start-up error, since secrets sealed with one could not be opened with the other.
 */
export function secretsKeyOf(parsed: ParsedEnvironment): string | undefined {
  const { SECRETS_KEY: key, WEBHOOK_SECRET_KEY: alias } = parsed;
  if (key !== undefined && alias !== undefined && key !== alias) {
    throw new SettingsError(
      'Invalid environment: SECRETS_KEY and WEBHOOK_SECRET_KEY (its alias) differ: set one',
    );
  }
  return key ?? alias;
}
