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
exports.McpOriginMiddleware = exports.ORIGIN_NOT_ALLOWED = void 0;
const common_1 = require("@nestjs/common");
const api_error_1 = require("../errors/api-error");
const settings_1 = require("../settings/settings");
exports.ORIGIN_NOT_ALLOWED = 'Origin not allowed for MCP requests.';
let McpOriginMiddleware = class McpOriginMiddleware {
    allowed;
    constructor(settings) {
        this.allowed = new Set(settings.mcpAllowedOrigins);
    }
    use(req, _res, next) {
        const origin = req.headers.origin;
        if (origin === undefined || this.isAllowed(origin))
            return next();
        throw new api_error_1.ApiError(403, exports.ORIGIN_NOT_ALLOWED);
    }
    isAllowed(origin) {
        if (this.allowed.has('*'))
            return true;
        const normal = (0, settings_1.originOf)(origin);
        return normal !== undefined && this.allowed.has(normal);
    }
};
exports.McpOriginMiddleware = McpOriginMiddleware;
exports.McpOriginMiddleware = McpOriginMiddleware = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, common_1.Inject)(settings_1.SETTINGS)),
    __metadata("design:paramtypes", [Object])
], McpOriginMiddleware);
//# sourceMappingURL=mcp-origin.middleware.js.map