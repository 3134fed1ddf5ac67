"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.AppModule = exports.TOOL_MODULES = void 0;
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const api_key_guard_1 = require("./auth/api-key.guard");
const auth_module_1 = require("./auth/auth.module");
const initial_key_1 = require("./auth/initial-key");
const scopes_guard_1 = require("./auth/scopes.guard");
const all_exceptions_filter_1 = require("./errors/all-exceptions.filter");
const validation_1 = require("./errors/validation");
const health_module_1 = require("./health/health.module");
const limits_module_1 = require("./limits/limits.module");
const quota_guard_1 = require("./limits/quota.guard");
const rate_limit_guard_1 = require("./limits/rate-limit.guard");
const logging_module_1 = require("./logging/logging.module");
const mcp_module_1 = require("./mcp/mcp.module");
const metrics_module_1 = require("./metrics/metrics.module");
const settings_module_1 = require("./settings/settings.module");
const store_module_1 = require("./store/store.module");
const config_module_1 = require("./tools/config/config.module");
const doctor_module_1 = require("./tools/doctor/doctor.module");
const greet_module_1 = require("./tools/greet/greet.module");
const tools_module_1 = require("./tools/tools.module");
exports.TOOL_MODULES = [greet_module_1.GreetModule, config_module_1.ConfigModule, doctor_module_1.DoctorModule];
let AppModule = class AppModule {
};
exports.AppModule = AppModule;
exports.AppModule = AppModule = __decorate([
    (0, common_1.Module)({
        imports: [
            settings_module_1.SettingsModule,
            logging_module_1.LoggingModule,
            store_module_1.StoreModule,
            auth_module_1.AuthModule,
            limits_module_1.LimitsModule,
            tools_module_1.ToolsModule,
            health_module_1.HealthModule,
            metrics_module_1.MetricsModule,
            mcp_module_1.McpModule,
            ...exports.TOOL_MODULES,
        ],
        providers: [
            { provide: core_1.APP_GUARD, useExisting: api_key_guard_1.ApiKeyGuard },
            { provide: core_1.APP_GUARD, useExisting: scopes_guard_1.ScopesGuard },
            ...(process.env.X_NORATE ? [] : [{ provide: core_1.APP_GUARD, useExisting: rate_limit_guard_1.KeyRateLimitGuard }]),
            ...(process.env.X_NOQUOTA ? [] : [{ provide: core_1.APP_GUARD, useExisting: quota_guard_1.QuotaGuard }]),
            ...(process.env.X_NOPIPE ? [] : [{ provide: core_1.APP_PIPE, useClass: validation_1.ApiValidationPipe }]),
            { provide: core_1.APP_FILTER, useClass: all_exceptions_filter_1.AllExceptionsFilter },
            initial_key_1.InitialKeyBootstrap,
        ],
    })
], AppModule);
//# sourceMappingURL=app.module.js.map