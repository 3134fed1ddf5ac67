import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import type Redis from 'ioredis';
import type { ApiRequest } from '../auth/authenticated-key';
import { Settings, SETTINGS } from '../settings/settings';
import { REDIS_CLIENT } from '../store/redis.connection';
import { AuthFailureLimiter } from './auth-failure.limiter';
import { Clock, SystemClock } from './clock';
import { effectiveLimits } from './key-limits';
import { QuotaInterceptor } from './quota.interceptor';
import { QuotaService } from './quota.service';
import { KeyRateLimitGuard } from './rate-limit.guard';
import { RedisThrottlerStorage } from './redis-throttler.storage';
import { UsageController } from './usage.controller';

/** Rate limits (per key, per second) and daily quotas; the guard and interceptor are registered globally in AppModule. */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [SETTINGS, REDIS_CLIENT],
      useFactory: (settings: Settings, redis: Redis | null) => ({
        // With Redis the counters are shared by every instance; otherwise in memory (one process).
        storage: redis ? new RedisThrottlerStorage(redis) : undefined,
        throttlers: [
          {
            name: 'default',
            ttl: 1000,
            limit: (context) => {
              const key = context.switchToHttp().getRequest<ApiRequest>().apiKey;
              return key ? effectiveLimits(key, settings).rate_limit : 1;
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
    QuotaInterceptor,
    KeyRateLimitGuard,
    AuthFailureLimiter,
  ],
  exports: [
    Clock,
    QuotaService,
    QuotaInterceptor,
    KeyRateLimitGuard,
    AuthFailureLimiter,
    ThrottlerModule,
  ],
})
export class LimitsModule {}
