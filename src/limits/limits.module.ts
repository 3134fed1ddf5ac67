import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import type Redis from 'ioredis';
import type { ApiRequest } from '../auth/authenticated-key';
import { Settings, SETTINGS } from '../settings/settings';
import { REDIS_CLIENT } from '../store/redis.connection';
import { AuthFailureLimiter } from './auth-failure.limiter';
import { Clock, SystemClock } from './clock';
import { KEY_THROTTLER, keyRateBudget } from './key-limits';
import { KeyRateLimiter } from './key-rate-limiter';
import { QuotaGuard } from './quota.guard';
import { QuotaService } from './quota.service';
import { MemoryThrottlerStorage } from './memory-throttler.storage';
import { KeyRateLimitGuard } from './rate-limit.guard';
import { RedisThrottlerStorage } from './redis-throttler.storage';
import { UsageController } from './usage.controller';

/** Rate limits (per key, per second) and daily quotas; their guards are registered globally in AppModule, in order. */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [SETTINGS, REDIS_CLIENT],
      useFactory: (settings: Settings, redis: Redis | null) => ({
        // With Redis the counters are shared by every instance; otherwise in memory (one process).
        storage: redis ? new RedisThrottlerStorage(redis) : new MemoryThrottlerStorage(),
        throttlers: [
          {
            name: KEY_THROTTLER,
            ttl: settings.rateLimitWindowMs,
            limit: (context) => {
              const key = context.switchToHttp().getRequest<ApiRequest>().apiKey;
              return key ? keyRateBudget(key, settings).limit : 1;
            },
          },
        ],
      }),
    }),
  ],
  controllers: [UsageController],
  providers: [
    { provide: Clock, useClass: SystemClock },
    QuotaService,
    QuotaGuard,
    KeyRateLimitGuard,
    KeyRateLimiter,
    AuthFailureLimiter,
  ],
  exports: [
    Clock,
    QuotaService,
    QuotaGuard,
    KeyRateLimitGuard,
    KeyRateLimiter,
    AuthFailureLimiter,
    ThrottlerModule,
  ],
})
export class LimitsModule {}
