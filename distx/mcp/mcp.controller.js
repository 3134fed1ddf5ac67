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
exports.McpController = exports.MCP_PATH = void 0;
const common_1 = require("@nestjs/common");
const swagger_1 = require("@nestjs/swagger");
const throttler_1 = require("@nestjs/throttler");
const streamableHttp_js_1 = require("@modelcontextprotocol/sdk/server/streamableHttp.js");
const auth_decorators_1 = require("../auth/auth.decorators");
const tool_decorator_1 = require("../tools/tool.decorator");
const mcp_server_1 = require("./mcp.server");
exports.MCP_PATH = 'mcp';
let McpController = class McpController {
    servers;
    constructor(servers) {
        this.servers = servers;
    }
    async handle(key, req, res) {
        const server = this.servers.create(() => Promise.resolve(key));
        const transport = new streamableHttp_js_1.StreamableHTTPServerTransport({
            sessionIdGenerator: undefined,
            enableJsonResponse: true,
        });
        res.on('close', () => void server.close());
        await server.connect(transport);
        await transport.handleRequest(req, res, req.body ?? null);
    }
};
exports.McpController = McpController;
__decorate([
    (0, common_1.Post)(),
    (0, auth_decorators_1.Scopes)([tool_decorator_1.TOOL_SCOPE]),
    (0, auth_decorators_1.BearerErrorCodes)(),
    (0, throttler_1.SkipThrottle)(),
    __param(0, (0, auth_decorators_1.CurrentKey)()),
    __param(1, (0, common_1.Req)()),
    __param(2, (0, common_1.Res)()),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, Object, Object]),
    __metadata("design:returntype", Promise)
], McpController.prototype, "handle", null);
exports.McpController = McpController = __decorate([
    (0, swagger_1.ApiExcludeController)(),
    (0, common_1.Controller)(exports.MCP_PATH),
    __metadata("design:paramtypes", [mcp_server_1.McpServerFactory])
], McpController);
//# sourceMappingURL=mcp.controller.js.map