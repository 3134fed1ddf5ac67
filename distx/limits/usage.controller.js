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
exports.UsageController = void 0;
const common_1 = require("@nestjs/common");
const swagger_1 = require("@nestjs/swagger");
const auth_decorators_1 = require("../auth/auth.decorators");
const api_errors_1 = require("../docs/api-errors");
const quota_service_1 = require("./quota.service");
class UsageView {
    plan;
    daily_limit;
    used;
    remaining;
    resets_at;
}
__decorate([
    (0, swagger_1.ApiProperty)(),
    __metadata("design:type", String)
], UsageView.prototype, "plan", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({
        type: 'integer',
        nullable: true,
        description: 'Calls per UTC day; null: no limit.',
    }),
    __metadata("design:type", Object)
], UsageView.prototype, "daily_limit", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer' }),
    __metadata("design:type", Number)
], UsageView.prototype, "used", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer', nullable: true }),
    __metadata("design:type", Object)
], UsageView.prototype, "remaining", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'Next UTC midnight, ISO 8601.' }),
    __metadata("design:type", String)
], UsageView.prototype, "resets_at", void 0);
let UsageController = class UsageController {
    quota;
    constructor(quota) {
        this.quota = quota;
    }
    async usage(key) {
        const state = await this.quota.usage(key);
        return {
            plan: key.plan,
            daily_limit: state.limit,
            used: state.used,
            remaining: state.remaining,
            resets_at: state.resetsAt.toISOString(),
        };
    }
};
exports.UsageController = UsageController;
__decorate([
    (0, common_1.Get)(),
    (0, swagger_1.ApiOkResponse)({ type: UsageView }),
    __param(0, (0, auth_decorators_1.CurrentKey)()),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object]),
    __metadata("design:returntype", Promise)
], UsageController.prototype, "usage", null);
exports.UsageController = UsageController = __decorate([
    (0, swagger_1.ApiTags)('usage'),
    (0, swagger_1.ApiBearerAuth)(),
    (0, api_errors_1.ApiErrors)(...api_errors_1.KEYED_ERRORS),
    (0, common_1.Controller)('api/v1/usage'),
    __metadata("design:paramtypes", [quota_service_1.QuotaService])
], UsageController);
//# sourceMappingURL=usage.controller.js.map