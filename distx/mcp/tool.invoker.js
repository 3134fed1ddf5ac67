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
exports.ToolInvoker = void 0;
const common_1 = require("@nestjs/common");
const scopes_1 = require("../auth/scopes");
const scopes_guard_1 = require("../auth/scopes.guard");
const api_error_1 = require("../errors/api-error");
const validation_1 = require("../errors/validation");
const key_rate_limiter_1 = require("../limits/key-rate-limiter");
const quota_service_1 = require("../limits/quota.service");
const tool_decorator_1 = require("../tools/tool.decorator");
let ToolInvoker = class ToolInvoker {
    rateLimiter;
    quota;
    validation = new validation_1.ApiValidationPipe();
    constructor(rateLimiter, quota) {
        this.rateLimiter = rateLimiter;
        this.quota = quota;
    }
    async invoke(key, tool, args) {
        if (!(0, scopes_1.hasScope)(key.scopes, tool_decorator_1.TOOL_SCOPE))
            throw new api_error_1.ApiError(403, scopes_guard_1.INSUFFICIENT_PERMISSIONS);
        await this.rateLimiter.consume(key);
        await this.quota.consume(key);
        const input = (await this.validation.transform(args, {
            type: 'body',
            metatype: tool.input,
        }));
        return asJsonBody(await tool.invoke(input));
    }
};
exports.ToolInvoker = ToolInvoker;
exports.ToolInvoker = ToolInvoker = __decorate([
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [key_rate_limiter_1.KeyRateLimiter,
        quota_service_1.QuotaService])
], ToolInvoker);
function asJsonBody(result) {
    return JSON.parse(JSON.stringify(result ?? null));
}
//# sourceMappingURL=tool.invoker.js.map