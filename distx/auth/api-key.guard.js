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
exports.ApiKeyGuard = void 0;
exports.notAuthenticated = notAuthenticated;
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const api_error_1 = require("../errors/api-error");
const auth_failure_limiter_1 = require("../limits/auth-failure.limiter");
const api_key_1 = require("./api-key");
const api_keys_service_1 = require("./api-keys.service");
const auth_decorators_1 = require("./auth.decorators");
function notAuthenticated(detail, withErrorCode = false) {
    return new api_error_1.ApiError(401, detail, {
        'WWW-Authenticate': withErrorCode ? 'Bearer error="invalid_token"' : 'Bearer',
    });
}
let ApiKeyGuard = class ApiKeyGuard {
    reflector;
    keys;
    failures;
    constructor(reflector, keys, failures) {
        this.reflector = reflector;
        this.keys = keys;
        this.failures = failures;
    }
    async canActivate(context) {
        if (context.getType() !== 'http')
            return true;
        const targets = [context.getHandler(), context.getClass()];
        if (this.reflector.getAllAndOverride(auth_decorators_1.Public, targets))
            return true;
        const req = context.switchToHttp().getRequest();
        const token = (0, api_key_1.bearerToken)(req.headers.authorization);
        const key = token === undefined ? undefined : await this.keys.authenticate(token);
        if (key) {
            req.apiKey = key;
            return true;
        }
        await this.failures.recordFailure(req);
        throw notAuthenticated(token === undefined ? 'Not authenticated' : 'Invalid API key', this.reflector.getAllAndOverride(auth_decorators_1.BearerErrorCodes, targets) === true);
    }
};
exports.ApiKeyGuard = ApiKeyGuard;
exports.ApiKeyGuard = ApiKeyGuard = __decorate([
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [core_1.Reflector,
        api_keys_service_1.ApiKeysService,
        auth_failure_limiter_1.AuthFailureLimiter])
], ApiKeyGuard);
//# sourceMappingURL=api-key.guard.js.map