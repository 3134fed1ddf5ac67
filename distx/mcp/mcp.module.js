"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.McpModule = exports.McpCoreModule = void 0;
const common_1 = require("@nestjs/common");
const limits_module_1 = require("../limits/limits.module");
const mcp_controller_1 = require("./mcp.controller");
const mcp_origin_middleware_1 = require("./mcp-origin.middleware");
const mcp_server_1 = require("./mcp.server");
const tool_invoker_1 = require("./tool.invoker");
let McpCoreModule = class McpCoreModule {
};
exports.McpCoreModule = McpCoreModule;
exports.McpCoreModule = McpCoreModule = __decorate([
    (0, common_1.Module)({
        imports: [limits_module_1.LimitsModule],
        providers: [tool_invoker_1.ToolInvoker, mcp_server_1.McpServerFactory],
        exports: [tool_invoker_1.ToolInvoker, mcp_server_1.McpServerFactory],
    })
], McpCoreModule);
let McpModule = class McpModule {
    configure(consumer) {
        consumer.apply(mcp_origin_middleware_1.McpOriginMiddleware).forRoutes(mcp_controller_1.MCP_PATH);
    }
};
exports.McpModule = McpModule;
exports.McpModule = McpModule = __decorate([
    (0, common_1.Module)({
        imports: [McpCoreModule],
        controllers: [mcp_controller_1.McpController],
        providers: [mcp_origin_middleware_1.McpOriginMiddleware],
    })
], McpModule);
//# sourceMappingURL=mcp.module.js.map