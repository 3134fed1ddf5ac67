"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.McpStdioRefused = exports.McpStdioModule = void 0;
exports.serveMcpOverStdio = serveMcpOverStdio;
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const stdio_js_1 = require("@modelcontextprotocol/sdk/server/stdio.js");
const nestjs_pino_1 = require("nestjs-pino");
const app_module_1 = require("../app.module");
const api_key_guard_1 = require("../auth/api-key.guard");
const api_keys_service_1 = require("../auth/api-keys.service");
const auth_module_1 = require("../auth/auth.module");
const scopes_1 = require("../auth/scopes");
const scopes_guard_1 = require("../auth/scopes.guard");
const limits_module_1 = require("../limits/limits.module");
const logging_module_1 = require("../logging/logging.module");
const settings_module_1 = require("../settings/settings.module");
const store_module_1 = require("../store/store.module");
const tool_decorator_1 = require("../tools/tool.decorator");
const tools_module_1 = require("../tools/tools.module");
const mcp_module_1 = require("./mcp.module");
const mcp_server_1 = require("./mcp.server");
let McpStdioModule = class McpStdioModule {
};
exports.McpStdioModule = McpStdioModule;
exports.McpStdioModule = McpStdioModule = __decorate([
    (0, common_1.Module)({
        imports: [
            settings_module_1.SettingsModule,
            logging_module_1.StderrLoggingModule,
            store_module_1.StoreModule,
            auth_module_1.KeysModule,
            limits_module_1.LimitsModule,
            tools_module_1.ToolsModule,
            mcp_module_1.McpCoreModule,
            ...app_module_1.TOOL_MODULES,
        ],
    })
], McpStdioModule);
class McpStdioRefused extends Error {
}
exports.McpStdioRefused = McpStdioRefused;
async function authenticate(keys, token) {
    const key = await keys.authenticate(token);
    if (!key)
        throw (0, api_key_guard_1.notAuthenticated)('Invalid API key');
    return key;
}
function untilClosed(stdin, stop) {
    const onEnd = () => void stop();
    stdin.once('end', onEnd);
    process.once('SIGINT', onEnd);
    process.once('SIGTERM', onEnd);
    return () => {
        stdin.off('end', onEnd);
        process.off('SIGINT', onEnd);
        process.off('SIGTERM', onEnd);
    };
}
async function serveMcpOverStdio(token, stdin = process.stdin, stdout = process.stdout) {
    const app = await core_1.NestFactory.createApplicationContext(McpStdioModule, {
        logger: false,
        abortOnError: false,
    });
    app.useLogger(app.get(nestjs_pino_1.Logger));
    try {
        const keys = app.get(api_keys_service_1.ApiKeysService);
        const key = await keys.authenticate(token);
        if (!key)
            throw new McpStdioRefused('Invalid API key');
        if (!(0, scopes_1.hasScope)(key.scopes, tool_decorator_1.TOOL_SCOPE)) {
            throw new McpStdioRefused(`${scopes_guard_1.INSUFFICIENT_PERMISSIONS} The key needs ${tool_decorator_1.TOOL_SCOPE}.`);
        }
        const server = app.get(mcp_server_1.McpServerFactory).create(() => authenticate(keys, token));
        const closed = new Promise((resolve) => (server.onclose = resolve));
        const release = untilClosed(stdin, () => server.close());
        try {
            await server.connect(new stdio_js_1.StdioServerTransport(stdin, stdout));
            await closed;
        }
        finally {
            release();
        }
    }
    finally {
        await app.close();
    }
}
//# sourceMappingURL=mcp.stdio.js.map