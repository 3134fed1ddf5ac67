import { Module } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { REDIS_CLIENT, RedisClient } from '../store/redis.connection';
import { Clock, SystemClock } from './clock';
import { KeyRateLimiter } from './key-rate-limiter';
import { MemoryThrottlerStorage } from './memory-throttler.storage';
import { QuotaService } from './quota.service';
import { RedisThrottlerStorage } from './redis-throttler.storage';

/**
 * Rate limits (per key, per window) and daily quotas: the counters and their storage. The checks
 * that apply them to a request are steps of the invocation pipeline (src/invocation/).
 */
@Module({
  providers: [
    { provide: Clock, useClass: SystemClock },
    {
      // @nestjs/throttler's storage contract: with Redis the counters are shared by every
      // instance; otherwise in memory (one process).
      provide: ThrottlerStorage,
      inject: [REDIS_CLIENT],
      useFactory: (redis: RedisClient | null) =>
        redis ? new RedisThrottlerStorage(redis) : new MemoryThrottlerStorage(),
    },
    QuotaService,
    KeyRateLimiter,
  ],
  exports: [Clock, ThrottlerStorage, QuotaService, KeyRateLimiter],
})
export class LimitsModule {}
