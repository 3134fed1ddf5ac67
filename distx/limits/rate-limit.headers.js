"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.rateLimitHeaders = rateLimitHeaders;
exports.rateLimitExceeded = rateLimitExceeded;
const api_error_1 = require("../errors/api-error");
function rateLimitHeaders(limit, remaining, resetSeconds) {
    const wait = Math.max(1, Math.ceil(resetSeconds));
    return {
        'Retry-After': wait,
        'X-RateLimit-Limit': limit,
        'X-RateLimit-Remaining': Math.max(0, remaining),
        'X-RateLimit-Reset': wait,
    };
}
function windowText(ttlMs) {
    return ttlMs === 1000 ? 'second' : `${ttlMs / 1000} seconds`;
}
function rateLimitExceeded(limit, ttlMs, blockedSeconds) {
    const wait = Math.max(1, blockedSeconds);
    return new api_error_1.ApiError(429, `Rate limit exceeded: ${limit} requests per ${windowText(ttlMs)}. Retry after ${wait} seconds.`, rateLimitHeaders(limit, 0, wait));
}
//# sourceMappingURL=rate-limit.headers.js.map