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
exports.MetricsModule = void 0;
const common_1 = require("@nestjs/common");
const prom_client_1 = require("prom-client");
const metrics_controller_1 = require("./metrics.controller");
const metrics_service_1 = require("./metrics.service");
function createRegistry() {
    const registry = new prom_client_1.Registry();
    (0, prom_client_1.collectDefaultMetrics)({ register: registry });
    return registry;
}
let MetricsModule = class MetricsModule {
    registry;
    constructor(registry) {
        this.registry = registry;
    }
    onApplicationShutdown() {
        this.registry.clear();
    }
};
exports.MetricsModule = MetricsModule;
exports.MetricsModule = MetricsModule = __decorate([
    (0, common_1.Global)(),
    (0, common_1.Module)({
        controllers: [metrics_controller_1.MetricsController],
        providers: [{ provide: prom_client_1.Registry, useFactory: createRegistry }, metrics_service_1.MetricsService],
        exports: [metrics_service_1.MetricsService],
    }),
    __param(0, (0, common_1.Inject)(prom_client_1.Registry)),
    __metadata("design:paramtypes", [prom_client_1.Registry])
], MetricsModule);
//# sourceMappingURL=metrics.module.js.map