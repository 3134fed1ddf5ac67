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
exports.HealthController = void 0;
const common_1 = require("@nestjs/common");
const swagger_1 = require("@nestjs/swagger");
const auth_decorators_1 = require("../auth/auth.decorators");
const health_dto_1 = require("./health.dto");
const health_service_1 = require("./health.service");
function HealthRoute(path, operationId) {
    return (0, common_1.applyDecorators)((0, common_1.Get)(path), (0, common_1.Header)('Cache-Control', 'no-store'), (0, swagger_1.ApiOperation)({ operationId, summary: 'Whether the service and its store are healthy.' }), (0, swagger_1.ApiOkResponse)({ type: health_dto_1.HealthView, description: 'Healthy.' }), (0, swagger_1.ApiServiceUnavailableResponse)({ type: health_dto_1.HealthView, description: 'Degraded: see `components`.' }));
}
let HealthController = class HealthController {
    health;
    constructor(health) {
        this.health = health;
    }
    root(res) {
        return this.answer(res);
    }
    versioned(res) {
        return this.answer(res);
    }
    async answer(res) {
        const view = await this.health.check();
        res.status(view.status === 'ok' ? 200 : 503);
        return view;
    }
};
exports.HealthController = HealthController;
__decorate([
    HealthRoute('health', 'health'),
    __param(0, (0, common_1.Res)({ passthrough: true })),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object]),
    __metadata("design:returntype", Promise)
], HealthController.prototype, "root", null);
__decorate([
    HealthRoute('api/v1/health', 'health_v1'),
    __param(0, (0, common_1.Res)({ passthrough: true })),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object]),
    __metadata("design:returntype", Promise)
], HealthController.prototype, "versioned", null);
exports.HealthController = HealthController = __decorate([
    (0, swagger_1.ApiTags)('health'),
    (0, auth_decorators_1.Public)(),
    (0, common_1.Controller)(),
    __metadata("design:paramtypes", [health_service_1.HealthService])
], HealthController);
//# sourceMappingURL=health.controller.js.map