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
exports.AuthFailureLimiter = void 0;
const common_1 = require("@nestjs/common");
const throttler_1 = require("@nestjs/throttler");
const api_error_1 = require("../errors/api-error");
const settings_1 = require("../settings/settings");
const rate_limit_headers_1 = require("./rate-limit.headers");
let AuthFailureLimiter = class AuthFailureLimiter {
    storage;
    settings;
    constructor(storage, settings) {
        this.storage = storage;
        this.settings = settings;
    }
    async recordFailure(req) {
        const limit = this.settings.authFailureLimit;
        const windowMs = this.settings.authFailureWindowSeconds * 1000;
        const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
        const hit = await this.storage.increment(`auth-failure:${address}`, windowMs, limit, windowMs, 'auth-failure');
        if (hit.isBlocked) {
            throw new api_error_1.ApiError(429, `Too many failed authentication attempts from this address. Retry after ${Math.max(1, hit.timeToBlockExpire)} seconds.`, (0, rate_limit_headers_1.rateLimitHeaders)(limit, 0, hit.timeToBlockExpire));
        }
    }
};
exports.AuthFailureLimiter = AuthFailureLimiter;
exports.AuthFailureLimiter = AuthFailureLimiter = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, common_1.Inject)(throttler_1.ThrottlerStorage)),
    __param(1, (0, common_1.Inject)(settings_1.SETTINGS)),
    __metadata("design:paramtypes", [Object, Object])
], AuthFailureLimiter);
//# sourceMappingURL=auth-failure.limiter.js.map