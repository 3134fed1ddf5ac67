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
exports.McpServerFactory = void 0;
const common_1 = require("@nestjs/common");
const index_js_1 = require("@modelcontextprotocol/sdk/server/index.js");
const types_js_1 = require("@modelcontextprotocol/sdk/types.js");
const api_error_1 = require("../errors/api-error");
const all_exceptions_filter_1 = require("../errors/all-exceptions.filter");
const validation_1 = require("../errors/validation");
const settings_1 = require("../settings/settings");
const store_1 = require("../store/store");
const tool_registry_1 = require("../tools/tool.registry");
const tool_invoker_1 = require("./tool.invoker");
class ProtocolError extends types_js_1.McpError {
    constructor(code, message, data) {
        super(code, message, data);
        this.message = message;
    }
}
function issueText(issue) {
    return `${issue.loc.join('.')}: ${issue.msg} [${issue.type}]`;
}
function invalidArguments(tool, issues) {
    return new ProtocolError(types_js_1.ErrorCode.InvalidParams, `Invalid arguments for tool '${tool}': ${issues.map(issueText).join('; ')}`, { detail: issues });
}
function unknownTool(name) {
    return new ProtocolError(types_js_1.ErrorCode.InvalidParams, `${all_exceptions_filter_1.STATUS_TEXT[404]}: no tool named '${name}'`, { detail: all_exceptions_filter_1.STATUS_TEXT[404] });
}
function textOf(detail) {
    if (typeof detail === 'string')
        return detail;
    if (Array.isArray(detail))
        return detail.map(issueText).join('; ');
    return JSON.stringify(detail);
}
function success(body) {
    return {
        content: [{ type: 'text', text: JSON.stringify(body) }],
        ...((0, validation_1.isPlainObject)(body) ? { structuredContent: body } : {}),
    };
}
function failure(detail, retryAfter) {
    let text = textOf(detail);
    if (retryAfter !== undefined && !/retry/i.test(text))
        text += ` Retry after ${retryAfter} seconds.`;
    return { content: [{ type: 'text', text }], isError: true };
}
let McpServerFactory = class McpServerFactory {
    registry;
    invoker;
    settings;
    logger = new common_1.Logger('Mcp');
    constructor(registry, invoker, settings) {
        this.registry = registry;
        this.invoker = invoker;
        this.settings = settings;
    }
    create(keySource) {
        const server = new index_js_1.Server({ name: 'tool-invocation-service', version: this.settings.version }, { capabilities: { tools: {} } });
        server.setRequestHandler(types_js_1.ListToolsRequestSchema, () => ({
            tools: this.registry.list().map(describeTool),
        }));
        server.setRequestHandler(types_js_1.CallToolRequestSchema, ({ params }) => this.callTool(keySource, params.name, params.arguments));
        return server;
    }
    async callTool(keySource, name, args) {
        const tool = this.registry.get(name);
        if (!tool)
            throw unknownTool(name);
        try {
            return success(await this.invoker.invoke(await keySource(), tool, args));
        }
        catch (error) {
            if (error instanceof api_error_1.ValidationFailed)
                throw invalidArguments(name, error.issues);
            return this.refusal(name, error);
        }
    }
    refusal(tool, error) {
        if (error instanceof store_1.StoreUnavailableError) {
            this.logger.error({ err: error }, 'Store unavailable');
            return failure(all_exceptions_filter_1.STORE_UNAVAILABLE.detail, all_exceptions_filter_1.STORE_UNAVAILABLE.headers['Retry-After']);
        }
        if (error instanceof common_1.HttpException) {
            const status = error.getStatus();
            if (status >= 500)
                this.logger.error({ err: error }, `Server error in MCP tool ${tool}`);
            const retryAfter = error instanceof api_error_1.ApiError ? error.headers['Retry-After'] : undefined;
            return failure((0, all_exceptions_filter_1.detailOf)(error, status), retryAfter);
        }
        this.logger.error({ err: error }, `Unhandled error in MCP tool ${tool}`);
        return failure(all_exceptions_filter_1.STATUS_TEXT[500]);
    }
};
exports.McpServerFactory = McpServerFactory;
exports.McpServerFactory = McpServerFactory = __decorate([
    (0, common_1.Injectable)(),
    __param(2, (0, common_1.Inject)(settings_1.SETTINGS)),
    __metadata("design:paramtypes", [tool_registry_1.ToolRegistry,
        tool_invoker_1.ToolInvoker, Object])
], McpServerFactory);
function describeTool(tool) {
    return {
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
    };
}
//# sourceMappingURL=mcp.server.js.map