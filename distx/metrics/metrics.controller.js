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
exports.MetricsController = void 0;
const common_1 = require("@nestjs/common");
const swagger_1 = require("@nestjs/swagger");
const prom_client_1 = require("prom-client");
const auth_decorators_1 = require("../auth/auth.decorators");
let MetricsController = class MetricsController {
    registry;
    constructor(registry) {
        this.registry = registry;
    }
    metrics() {
        return this.registry.metrics();
    }
};
exports.MetricsController = MetricsController;
__decorate([
    (0, common_1.Get)(),
    (0, common_1.Header)('Content-Type', prom_client_1.Registry.PROMETHEUS_CONTENT_TYPE),
    (0, common_1.Header)('Cache-Control', 'no-store'),
    (0, swagger_1.ApiOperation)({ operationId: 'metrics', summary: 'Prometheus metrics, text exposition format.' }),
    (0, swagger_1.ApiProduces)(prom_client_1.Registry.PROMETHEUS_CONTENT_TYPE),
    (0, swagger_1.ApiOkResponse)({ schema: { type: 'string' }, description: 'The metrics.' }),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", []),
    __metadata("design:returntype", Promise)
], MetricsController.prototype, "metrics", null);
exports.MetricsController = MetricsController = __decorate([
    (0, swagger_1.ApiTags)('operations'),
    (0, auth_decorators_1.Public)(),
    (0, common_1.Controller)('metrics'),
    __metadata("design:paramtypes", [prom_client_1.Registry])
], MetricsController);
//# sourceMappingURL=metrics.controller.js.map