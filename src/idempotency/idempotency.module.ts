import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits';
import { IdempotencyCheck } from './idempotency.check';
import { IdempotencyService } from './idempotency.service';
import { IDEMPOTENCY_STORES } from './idempotency.stores';

/** Kept answers of `Idempotency-Key`: the check of a call, the service the runtime uses, and its store. */
@Module({
  imports: [LimitsModule],
  providers: [...IDEMPOTENCY_STORES, IdempotencyService, IdempotencyCheck],
  exports: [IdempotencyService, IdempotencyCheck],
})
export class IdempotencyModule {}
