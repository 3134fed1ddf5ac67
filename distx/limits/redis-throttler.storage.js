"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.RedisThrottlerStorage = void 0;
const throttler_storage_redis_1 = require("@nest-lab/throttler-storage-redis");
const redis_connection_1 = require("../store/redis.connection");
class RedisThrottlerStorage extends throttler_storage_redis_1.ThrottlerStorageRedisService {
    increment(key, ttl, limit, blockDuration, throttlerName) {
        return (0, redis_connection_1.redisCall)(super.increment(key, ttl, limit, blockDuration, throttlerName));
    }
}
exports.RedisThrottlerStorage = RedisThrottlerStorage;
//# sourceMappingURL=redis-throttler.storage.js.map