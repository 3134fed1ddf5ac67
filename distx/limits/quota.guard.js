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
exports.QuotaGuard = void 0;
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const tool_decorator_1 = require("../tools/tool.decorator");
const quota_service_1 = require("./quota.service");
let QuotaGuard = class QuotaGuard {
    reflector;
    quota;
    constructor(reflector, quota) {
        this.reflector = reflector;
        this.quota = quota;
    }
    async canActivate(context) {
        if (context.getType() !== 'http' || !this.reflector.get(tool_decorator_1.TOOL_METADATA, context.getHandler())) {
            return true;
        }
        const http = context.switchToHttp();
        const key = http.getRequest().apiKey;
        if (key) {
            const state = await this.quota.consume(key);
            const res = http.getResponse();
            for (const [name, value] of Object.entries((0, quota_service_1.quotaHeaders)(state)))
                res.setHeader(name, value);
        }
        return true;
    }
};
exports.QuotaGuard = QuotaGuard;
exports.QuotaGuard = QuotaGuard = __decorate([
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [core_1.Reflector,
        quota_service_1.QuotaService])
], QuotaGuard);
//# sourceMappingURL=quota.guard.js.map