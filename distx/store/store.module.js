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
exports.StoreModule = void 0;
exports.createRedisClientIfConfigured = createRedisClientIfConfigured;
exports.createStore = createStore;
const common_1 = require("@nestjs/common");
const settings_1 = require("../settings/settings");
const redis_connection_1 = require("./redis.connection");
const redis_store_1 = require("./redis.store");
const sqlite_store_1 = require("./sqlite.store");
const store_1 = require("./store");
function createRedisClientIfConfigured(settings) {
    return settings.redisUrl ? (0, redis_connection_1.createRedisClient)(settings, 'commands') : null;
}
async function createStore(settings, redis = null) {
    if (!settings.redisUrl)
        return new sqlite_store_1.SqliteStore(settings.dataDir);
    return redis_store_1.RedisStore.open(redis ?? (0, redis_connection_1.createRedisClient)(settings, 'commands'), settings);
}
let StoreModule = class StoreModule {
    store;
    constructor(store) {
        this.store = store;
    }
    async onApplicationShutdown() {
        await this.store.close();
    }
};
exports.StoreModule = StoreModule;
exports.StoreModule = StoreModule = __decorate([
    (0, common_1.Global)(),
    (0, common_1.Module)({
        providers: [
            { provide: redis_connection_1.REDIS_CLIENT, inject: [settings_1.SETTINGS], useFactory: createRedisClientIfConfigured },
            { provide: store_1.Store, inject: [settings_1.SETTINGS, redis_connection_1.REDIS_CLIENT], useFactory: createStore },
        ],
        exports: [store_1.Store, redis_connection_1.REDIS_CLIENT],
    }),
    __param(0, (0, common_1.Inject)(store_1.Store)),
    __metadata("design:paramtypes", [store_1.Store])
], StoreModule);
//# sourceMappingURL=store.module.js.map