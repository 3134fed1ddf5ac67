import { Module } from '@nestjs/common';
import { Clock, SystemClock } from './clock';
import { KeyRateLimiter } from './key-rate-limiter';
import { QuotaService } from './quota.service';

/**
 * Rate limits (per key, per window) and daily quotas: what they allow, on the counters the store
 * keeps (rate windows, usage and the accounting step: src/store/). The checks that apply them to a
 * request are steps of the invocation pipeline (src/invocation/).
 */
@Module({
  providers: [{ provide: Clock, useClass: SystemClock }, QuotaService, KeyRateLimiter],
  exports: [Clock, QuotaService, KeyRateLimiter],
})
export class LimitsModule {}
