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
Object.defineProperty(exports, "__esModule", { value: true });
exports.HealthView = void 0;
const swagger_1 = require("@nestjs/swagger");
class StoreHealth {
    status;
}
__decorate([
    (0, swagger_1.ApiProperty)({ enum: ['ok', 'error'] }),
    __metadata("design:type", String)
], StoreHealth.prototype, "status", void 0);
class RedisHealth {
    status;
}
__decorate([
    (0, swagger_1.ApiProperty)({
        enum: ['ok', 'not_configured', 'error'],
        description: '`not_configured` when REDIS_URL is unset (the embedded store is in use).',
    }),
    __metadata("design:type", String)
], RedisHealth.prototype, "status", void 0);
class HealthComponents {
    store;
    redis;
}
__decorate([
    (0, swagger_1.ApiProperty)({ type: StoreHealth }),
    __metadata("design:type", StoreHealth)
], HealthComponents.prototype, "store", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: RedisHealth }),
    __metadata("design:type", RedisHealth)
], HealthComponents.prototype, "redis", void 0);
class HealthView {
    status;
    version;
    timestamp;
    components;
}
exports.HealthView = HealthView;
__decorate([
    (0, swagger_1.ApiProperty)({
        enum: ['ok', 'degraded'],
        description: '`degraded` (answered 503) when a component is in error or the service is stopping.',
    }),
    __metadata("design:type", String)
], HealthView.prototype, "status", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ example: '1.0.0' }),
    __metadata("design:type", String)
], HealthView.prototype, "version", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'When the checks ran, ISO 8601 UTC.' }),
    __metadata("design:type", String)
], HealthView.prototype, "timestamp", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: HealthComponents }),
    __metadata("design:type", HealthComponents)
], HealthView.prototype, "components", void 0);
//# sourceMappingURL=health.dto.js.map