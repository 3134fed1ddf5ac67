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
exports.HealthService = void 0;
const common_1 = require("@nestjs/common");
const settings_1 = require("../settings/settings");
const store_1 = require("../store/store");
const CHECK_TIMEOUT_MS = 2000;
function withTimeout(work, ms, what) {
    let timer;
    const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
        timer.unref();
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
let HealthService = class HealthService {
    store;
    settings;
    logger = new common_1.Logger('Health');
    stopping = false;
    lastStoreStatus = 'ok';
    constructor(store, settings) {
        this.store = store;
        this.settings = settings;
    }
    async check(now = new Date()) {
        const store = await this.storeStatus();
        const redis = this.redisStatus(store);
        const healthy = !this.stopping && store === 'ok' && redis !== 'error';
        return {
            status: healthy ? 'ok' : 'degraded',
            version: this.settings.version,
            timestamp: now.toISOString(),
            components: { store: { status: store }, redis: { status: redis } },
        };
    }
    redisStatus(store) {
        if (!this.settings.redisUrl)
            return 'not_configured';
        return this.store.kind === 'redis' ? store : 'error';
    }
    async storeStatus() {
        let problem;
        try {
            await withTimeout(this.store.ping(), CHECK_TIMEOUT_MS, 'The store');
            const problems = await withTimeout(this.store.checkIntegrity(), CHECK_TIMEOUT_MS, "The store's integrity check");
            if (problems.length)
                problem = `integrity check failed: ${problems.slice(0, 5).join('; ')}`;
        }
        catch (error) {
            problem = error instanceof Error ? error.message : String(error);
        }
        const status = problem === undefined ? 'ok' : 'error';
        this.logTransition(status, problem);
        return status;
    }
    logTransition(status, problem) {
        if (status === this.lastStoreStatus)
            return;
        this.lastStoreStatus = status;
        if (status === 'error')
            this.logger.error(`Store unhealthy: ${problem}`);
        else
            this.logger.log('Store healthy again');
    }
    beforeApplicationShutdown(signal) {
        this.stopping = true;
        if (signal)
            this.logger.log(`${signal}: finishing in-flight requests, then closing the store`);
    }
};
exports.HealthService = HealthService;
exports.HealthService = HealthService = __decorate([
    (0, common_1.Injectable)(),
    __param(1, (0, common_1.Inject)(settings_1.SETTINGS)),
    __metadata("design:paramtypes", [store_1.Store, Object])
], HealthService);
//# sourceMappingURL=health.service.js.map