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
exports.AuthController = void 0;
const common_1 = require("@nestjs/common");
const swagger_1 = require("@nestjs/swagger");
const api_errors_1 = require("../docs/api-errors");
const api_error_1 = require("../errors/api-error");
const api_keys_service_1 = require("./api-keys.service");
const api_keys_dto_1 = require("./api-keys.dto");
const auth_decorators_1 = require("./auth.decorators");
const scopes_1 = require("./scopes");
let AuthController = class AuthController {
    keys;
    constructor(keys) {
        this.keys = keys;
    }
    me(key) {
        return {
            key_id: key.id,
            name: key.name,
            scopes: key.scopes,
            plan: key.plan,
            auth_method: 'api_key',
            created_at: key.created_at,
            expires_at: key.expires_at,
        };
    }
    async create(caller, input) {
        const unknown = (input.scopes ?? []).flatMap((scope, i) => (0, scopes_1.isValidScope)(scope)
            ? []
            : [{ loc: ['body', 'scopes', i], msg: `Unknown scope '${scope}'`, type: 'value_error' }]);
        if (unknown.length)
            throw new api_error_1.ValidationFailed(unknown);
        let scopes;
        try {
            scopes = this.keys.resolveScopes(input);
        }
        catch (error) {
            throw this.badRequest(error, 'scopes');
        }
        const beyond = scopes.filter((wanted) => !caller.scopes.some((held) => (0, scopes_1.scopeCovers)(held, wanted)));
        if (beyond.length) {
            throw new api_error_1.ApiError(403, `Insufficient permissions for this operation. Cannot grant scopes the calling key does not hold: ${beyond.join(', ')}`);
        }
        try {
            const { key, record } = await this.keys.create(input);
            return { ...(0, api_keys_service_1.toView)(record), key };
        }
        catch (error) {
            throw this.badRequest(error, 'plan');
        }
    }
    badRequest(error, field) {
        if (!(error instanceof api_keys_service_1.KeyRequestError))
            return error;
        return new api_error_1.ValidationFailed([
            { loc: ['body', field], msg: error.message, type: 'value_error' },
        ]);
    }
    async list() {
        const now = new Date();
        return (await this.keys.list()).map((record) => (0, api_keys_service_1.toView)(record, now));
    }
    async revoke(id) {
        if (!(await this.keys.revoke(id)))
            throw new api_error_1.ApiError(404, 'API key not found');
        return { id, status: 'revoked' };
    }
};
exports.AuthController = AuthController;
__decorate([
    (0, common_1.Get)('me'),
    (0, swagger_1.ApiOkResponse)({ type: api_keys_dto_1.Me }),
    __param(0, (0, auth_decorators_1.CurrentKey)()),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object]),
    __metadata("design:returntype", api_keys_dto_1.Me)
], AuthController.prototype, "me", null);
__decorate([
    (0, common_1.Post)('api-keys'),
    (0, auth_decorators_1.Scopes)(['admin:write']),
    (0, swagger_1.ApiCreatedResponse)({ type: api_keys_dto_1.CreatedApiKey }),
    (0, api_errors_1.ApiErrors)(...api_errors_1.BODY_ERRORS, 403),
    __param(0, (0, auth_decorators_1.CurrentKey)()),
    __param(1, (0, common_1.Body)()),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, api_keys_dto_1.CreateApiKeyInput]),
    __metadata("design:returntype", Promise)
], AuthController.prototype, "create", null);
__decorate([
    (0, common_1.Get)('api-keys'),
    (0, auth_decorators_1.Scopes)(['admin:read']),
    (0, swagger_1.ApiOkResponse)({ type: [api_keys_dto_1.ApiKeyView] }),
    (0, api_errors_1.ApiErrors)(403),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", []),
    __metadata("design:returntype", Promise)
], AuthController.prototype, "list", null);
__decorate([
    (0, common_1.Delete)('api-keys/:id'),
    (0, common_1.HttpCode)(200),
    (0, auth_decorators_1.Scopes)(['admin:write']),
    (0, swagger_1.ApiOkResponse)({ type: api_keys_dto_1.RevokedApiKey }),
    (0, api_errors_1.ApiErrors)(403, 404),
    __param(0, (0, common_1.Param)('id')),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [String]),
    __metadata("design:returntype", Promise)
], AuthController.prototype, "revoke", null);
exports.AuthController = AuthController = __decorate([
    (0, swagger_1.ApiTags)('auth'),
    (0, swagger_1.ApiBearerAuth)(),
    (0, api_errors_1.ApiErrors)(...api_errors_1.KEYED_ERRORS),
    (0, common_1.Controller)('api/v1/auth'),
    __metadata("design:paramtypes", [api_keys_service_1.ApiKeysService])
], AuthController);
//# sourceMappingURL=auth.controller.js.map