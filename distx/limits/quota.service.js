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
exports.QuotaService = void 0;
exports.quotaHeaders = quotaHeaders;
const common_1 = require("@nestjs/common");
const api_error_1 = require("../errors/api-error");
const settings_1 = require("../settings/settings");
const store_1 = require("../store/store");
const clock_1 = require("./clock");
const key_limits_1 = require("./key-limits");
let QuotaService = class QuotaService {
    store;
    clock;
    settings;
    constructor(store, clock, settings) {
        this.store = store;
        this.clock = clock;
        this.settings = settings;
    }
    window() {
        const now = this.clock.now();
        const resetsAt = (0, clock_1.nextUtcMidnight)(now);
        return {
            day: (0, clock_1.utcDay)(now),
            resetsAt,
            resetSeconds: Math.ceil((resetsAt.getTime() - now.getTime()) / 1000),
        };
    }
    state(limit, used, resetsAt, resetSeconds) {
        return {
            limit,
            used,
            remaining: limit === null ? null : Math.max(0, limit - used),
            resetsAt,
            resetSeconds,
        };
    }
    async consume(key) {
        const { daily_limit: limit } = (0, key_limits_1.effectiveLimits)(key, this.settings);
        const { day, resetsAt, resetSeconds } = this.window();
        const result = await this.store.consumeQuota(key.id, day, limit);
        if (!result.allowed) {
            const hours = Math.floor(resetSeconds / 3600);
            const minutes = Math.floor((resetSeconds % 3600) / 60);
            throw new api_error_1.ApiError(402, `Daily request limit exceeded (${result.used}/${limit}). Resets in ${hours}h ${minutes}m.`, {
                'Retry-After': resetSeconds,
                ...quotaHeaders(this.state(limit, result.used, resetsAt, resetSeconds)),
            });
        }
        return this.state(limit, result.used, resetsAt, resetSeconds);
    }
    async usage(key) {
        const { daily_limit: limit } = (0, key_limits_1.effectiveLimits)(key, this.settings);
        const { day, resetsAt, resetSeconds } = this.window();
        return this.state(limit, await this.store.getUsage(key.id, day), resetsAt, resetSeconds);
    }
};
exports.QuotaService = QuotaService;
exports.QuotaService = QuotaService = __decorate([
    (0, common_1.Injectable)(),
    __param(2, (0, common_1.Inject)(settings_1.SETTINGS)),
    __metadata("design:paramtypes", [store_1.Store,
        clock_1.Clock, Object])
], QuotaService);
function quotaHeaders(state) {
    return {
        ...(state.limit === null
            ? {}
            : { 'X-Quota-Limit': state.limit, 'X-Quota-Remaining': state.remaining ?? 0 }),
        'X-Quota-Used': state.used,
        'X-Quota-Reset': state.resetSeconds,
    };
}
//# sourceMappingURL=quota.service.js.map