"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.KeysModule = exports.AuthModule = void 0;
const common_1 = require("@nestjs/common");
const api_key_guard_1 = require("./api-key.guard");
const api_keys_service_1 = require("./api-keys.service");
const auth_controller_1 = require("./auth.controller");
const scopes_guard_1 = require("./scopes.guard");
const limits_module_1 = require("../limits/limits.module");
let AuthModule = class AuthModule {
};
exports.AuthModule = AuthModule;
exports.AuthModule = AuthModule = __decorate([
    (0, common_1.Module)({
        imports: [limits_module_1.LimitsModule],
        controllers: [auth_controller_1.AuthController],
        providers: [api_keys_service_1.ApiKeysService, api_key_guard_1.ApiKeyGuard, scopes_guard_1.ScopesGuard],
        exports: [api_keys_service_1.ApiKeysService, api_key_guard_1.ApiKeyGuard, scopes_guard_1.ScopesGuard],
    })
], AuthModule);
let KeysModule = class KeysModule {
};
exports.KeysModule = KeysModule;
exports.KeysModule = KeysModule = __decorate([
    (0, common_1.Module)({
        providers: [api_keys_service_1.ApiKeysService],
        exports: [api_keys_service_1.ApiKeysService],
    })
], KeysModule);
//# sourceMappingURL=auth.module.js.map