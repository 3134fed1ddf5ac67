"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.KEY_THROTTLER = void 0;
exports.effectiveLimits = effectiveLimits;
exports.keyRateStorageKey = keyRateStorageKey;
exports.keyRateBudget = keyRateBudget;
function effectiveLimits(key, settings) {
    const plan = settings.plans[key.plan] ?? settings.plans[settings.defaultPlan];
    return {
        daily_limit: key.daily_limit ?? plan.daily_limit,
        rate_limit: key.rate_limit ?? plan.rate_limit,
    };
}
exports.KEY_THROTTLER = 'default';
function keyRateStorageKey(keyId) {
    return `rate:${exports.KEY_THROTTLER}:key:${keyId}`;
}
function keyRateBudget(key, settings) {
    return {
        throttler: exports.KEY_THROTTLER,
        storageKey: keyRateStorageKey(key.id),
        ttlMs: settings.rateLimitWindowMs,
        limit: effectiveLimits(key, settings).rate_limit,
    };
}
//# sourceMappingURL=key-limits.js.map