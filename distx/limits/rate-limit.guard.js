"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.KeyRateLimitGuard = void 0;
const common_1 = require("@nestjs/common");
const throttler_1 = require("@nestjs/throttler");
const key_limits_1 = require("./key-limits");
const rate_limit_headers_1 = require("./rate-limit.headers");
let KeyRateLimitGuard = class KeyRateLimitGuard extends throttler_1.ThrottlerGuard {
    shouldSkip(context) {
        if (context.getType() !== 'http')
            return Promise.resolve(true);
        return Promise.resolve(!context.switchToHttp().getRequest().apiKey);
    }
    getTracker(req) {
        return Promise.resolve(req.apiKey?.id ?? '');
    }
    generateKey(_context, keyId) {
        return (0, key_limits_1.keyRateStorageKey)(keyId);
    }
    throwThrottlingException(_context, detail) {
        throw (0, rate_limit_headers_1.rateLimitExceeded)(detail.limit, detail.ttl, detail.timeToBlockExpire);
    }
};
exports.KeyRateLimitGuard = KeyRateLimitGuard;
exports.KeyRateLimitGuard = KeyRateLimitGuard = __decorate([
    (0, common_1.Injectable)()
], KeyRateLimitGuard);
//# sourceMappingURL=rate-limit.guard.js.map