import { Module } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { CallCounter } from './call-counter';
import { LIMIT_STORES } from './limits.stores';
import { UsageStore } from './usage.store';
import { LimitsService } from './limits.service';
import { Clock, SystemClock } from '../kernel/common/clock';
import { KeyRateLimiter } from './key-rate-limiter';
import { QuotaService } from './quota.service';

/**
 * Rate limits (per key, per window) and daily quotas, and LimitsService, the one owner of what a call
 * costs: what they allow, on the counters the store
 * keeps (rate windows, usage and the call counter). The checks that apply them to a
 * request are CallChecks (src/invocations/call-checks.ts).
 */
@Module({
  providers: [
    ...LIMIT_STORES,
    { provide: Clock, useClass: SystemClock },
    QuotaService,
    KeyRateLimiter,
    LimitsService,
  ],
  exports: [
    UsageStore,
    ThrottlerStorage,
    CallCounter,
    Clock,
    QuotaService,
    KeyRateLimiter,
    LimitsService,
  ],
})
export class LimitsModule {}
