import { Module } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { REDIS_CLIENT, RedisClient } from '../store/redis.connection';
import { Store } from '../store/store';
import { CallCounter, LocalCallCounter } from './call-counter';
import { Clock, SystemClock } from './clock';
import { KeyRateLimiter } from './key-rate-limiter';
import { BudgetStorage, MemoryThrottlerStorage } from './memory-throttler.storage';
import { QuotaService } from './quota.service';
import { RedisCallCounter, RedisThrottlerStorage } from './redis-throttler.storage';

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
    {
      // Where a call's rate budget and quota are counted together: one script on Redis.
      provide: CallCounter,
      inject: [REDIS_CLIENT, ThrottlerStorage, Store],
      useFactory: (redis: RedisClient | null, storage: BudgetStorage, store: Store) =>
        redis
          ? new RedisCallCounter(redis, storage as RedisThrottlerStorage)
          : new LocalCallCounter(storage, store),
    },
    QuotaService,
    KeyRateLimiter,
  ],
  exports: [Clock, ThrottlerStorage, QuotaService, KeyRateLimiter],
})
export class LimitsModule {}
