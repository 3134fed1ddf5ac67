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
exports.ScopesGuard = exports.INSUFFICIENT_PERMISSIONS = void 0;
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const api_error_1 = require("../errors/api-error");
const auth_decorators_1 = require("./auth.decorators");
const scopes_1 = require("./scopes");
exports.INSUFFICIENT_PERMISSIONS = 'Insufficient permissions for this operation.';
let ScopesGuard = class ScopesGuard {
    reflector;
    constructor(reflector) {
        this.reflector = reflector;
    }
    canActivate(context) {
        if (context.getType() !== 'http')
            return true;
        const targets = [context.getHandler(), context.getClass()];
        const wanted = this.reflector.getAllAndOverride(auth_decorators_1.Scopes, targets);
        const key = context.switchToHttp().getRequest().apiKey;
        if (!wanted || !key || (0, scopes_1.hasAnyScope)(key.scopes, wanted))
            return true;
        const challenge = this.reflector.getAllAndOverride(auth_decorators_1.BearerErrorCodes, targets)
            ? { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${wanted.join(' ')}"` }
            : undefined;
        throw new api_error_1.ApiError(403, exports.INSUFFICIENT_PERMISSIONS, challenge);
    }
};
exports.ScopesGuard = ScopesGuard;
exports.ScopesGuard = ScopesGuard = __decorate([
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [core_1.Reflector])
], ScopesGuard);
//# sourceMappingURL=scopes.guard.js.map