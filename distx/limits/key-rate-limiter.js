"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var __metadata = (this && this.__metadata) || function (k, v) {
    if (typeof Reflect === "object" && typeof Reflect.metadata === "function") return Reflect.metadata(k, v);
};
var __param = (this && this.__param) || function (paramIndex, decorator) {
    return function (target, key) { decorator(target, key, paramIndex); }
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.KeyRateLimiter = void 0;
const common_1 = require("@nestjs/common");
const throttler_1 = require("@nestjs/throttler");
const settings_1 = require("../settings/settings");
const key_limits_1 = require("./key-limits");
const rate_limit_headers_1 = require("./rate-limit.headers");
let KeyRateLimiter = class KeyRateLimiter {
    storage;
    settings;
    constructor(storage, settings) {
        this.storage = storage;
        this.settings = settings;
    }
    async consume(key) {
        const budget = (0, key_limits_1.keyRateBudget)(key, this.settings);
        const hit = await this.storage.increment(budget.storageKey, budget.ttlMs, budget.limit, budget.ttlMs, budget.throttler);
        if (hit.isBlocked)
            throw (0, rate_limit_headers_1.rateLimitExceeded)(budget.limit, budget.ttlMs, hit.timeToBlockExpire);
    }
};
exports.KeyRateLimiter = KeyRateLimiter;
exports.KeyRateLimiter = KeyRateLimiter = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, common_1.Inject)(throttler_1.ThrottlerStorage)),
    __param(1, (0, common_1.Inject)(settings_1.SETTINGS)),
    __metadata("design:paramtypes", [Object, Object])
], KeyRateLimiter);
//# sourceMappingURL=key-rate-limiter.js.map