import { Module } from '@nestjs/common';
import { Accounting } from './accounting';
import { Clock, SystemClock } from '../kernel/common/clock';
import { KeyRateLimiter } from './key-rate-limiter';
import { QuotaService } from './quota.service';

/**
 * Rate limits (per key, per window) and daily quotas, and Accounting, the one owner of what a call
 * costs: what they allow, on the counters the store
 * keeps (rate windows, usage and the accounting step: src/kernel/store/). The checks that apply them to a
 * request are steps of the invocation pipeline (src/invocations/).
 */
@Module({
  providers: [{ provide: Clock, useClass: SystemClock }, QuotaService, KeyRateLimiter, Accounting],
  exports: [Clock, QuotaService, KeyRateLimiter, Accounting],
})
export class LimitsModule {}
