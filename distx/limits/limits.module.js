"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.LimitsModule = void 0;
const common_1 = require("@nestjs/common");
const throttler_1 = require("@nestjs/throttler");
const settings_1 = require("../settings/settings");
const redis_connection_1 = require("../store/redis.connection");
const auth_failure_limiter_1 = require("./auth-failure.limiter");
const clock_1 = require("./clock");
const key_limits_1 = require("./key-limits");
const key_rate_limiter_1 = require("./key-rate-limiter");
const quota_guard_1 = require("./quota.guard");
const quota_service_1 = require("./quota.service");
const rate_limit_guard_1 = require("./rate-limit.guard");
const redis_throttler_storage_1 = require("./redis-throttler.storage");
const usage_controller_1 = require("./usage.controller");
let LimitsModule = class LimitsModule {
};
exports.LimitsModule = LimitsModule;
exports.LimitsModule = LimitsModule = __decorate([
    (0, common_1.Module)({
        imports: [
            throttler_1.ThrottlerModule.forRootAsync({
                inject: [settings_1.SETTINGS, redis_connection_1.REDIS_CLIENT],
                useFactory: (settings, redis) => ({
                    storage: redis ? new redis_throttler_storage_1.RedisThrottlerStorage(redis) : undefined,
                    throttlers: [
                        {
                            name: key_limits_1.KEY_THROTTLER,
                            ttl: settings.rateLimitWindowMs,
                            limit: (context) => {
                                const key = context.switchToHttp().getRequest().apiKey;
                                return key ? (0, key_limits_1.keyRateBudget)(key, settings).limit : 1;
                            },
                        },
                    ],
                }),
            }),
        ],
        controllers: [usage_controller_1.UsageController],
        providers: [
            { provide: clock_1.Clock, useClass: clock_1.SystemClock },
            quota_service_1.QuotaService,
            quota_guard_1.QuotaGuard,
            rate_limit_guard_1.KeyRateLimitGuard,
            key_rate_limiter_1.KeyRateLimiter,
            auth_failure_limiter_1.AuthFailureLimiter,
        ],
        exports: [
            clock_1.Clock,
            quota_service_1.QuotaService,
            quota_guard_1.QuotaGuard,
            rate_limit_guard_1.KeyRateLimitGuard,
            key_rate_limiter_1.KeyRateLimiter,
            auth_failure_limiter_1.AuthFailureLimiter,
            throttler_1.ThrottlerModule,
        ],
    })
], LimitsModule);
//# sourceMappingURL=limits.module.js.map