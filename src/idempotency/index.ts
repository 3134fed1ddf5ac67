/**
 * The idempotency feature's public entry: what the other features, the transports, the tools and
 * the processes may use of it. Nothing else of this folder is imported from outside it.
 */
export { IdempotencyCheck } from './idempotency.check';
export type { IdempotentCall } from './idempotency.check';
export {
  IdempotencyEntry,
  IDEMPOTENCY_HEADER,
  IDEMPOTENCY_KEY_PATTERN,
  IdempotencyService,
  MCP_IDEMPOTENCY_META,
} from './idempotency.service';
export { IdempotencyStore } from './idempotency.store';
export { IdempotencyModule } from './idempotency.module';
