import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits';
import { IdempotencyService } from './idempotency.service';
import { IDEMPOTENCY_STORES } from './idempotency.stores';

/** Kept answers of `Idempotency-Key`: the service the pipeline's step and the runtime use, and its store. */
@Module({
  imports: [LimitsModule],
  providers: [...IDEMPOTENCY_STORES, IdempotencyService],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
