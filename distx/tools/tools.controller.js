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
exports.ToolsController = void 0;
const common_1 = require("@nestjs/common");
const swagger_1 = require("@nestjs/swagger");
const auth_decorators_1 = require("../auth/auth.decorators");
const api_errors_1 = require("../docs/api-errors");
const tool_decorator_1 = require("./tool.decorator");
const tool_registry_1 = require("./tool.registry");
const tools_dto_1 = require("./tools.dto");
let ToolsController = class ToolsController {
    registry;
    constructor(registry) {
        this.registry = registry;
    }
    list() {
        return {
            tools: this.registry.list().map((tool) => ({
                name: tool.name,
                description: tool.description,
                method: 'POST',
                path: tool.path,
                input_schema: tool.inputSchema,
                output_schema: tool.outputSchema,
            })),
        };
    }
};
exports.ToolsController = ToolsController;
__decorate([
    (0, common_1.Get)(),
    (0, auth_decorators_1.Scopes)(['services:read', 'services:execute']),
    (0, swagger_1.ApiOperation)({
        operationId: 'list_tools',
        summary: 'Every tool, with the JSON Schema of its input and output.',
    }),
    (0, swagger_1.ApiOkResponse)({ type: tools_dto_1.ToolList }),
    (0, api_errors_1.ApiErrors)(...api_errors_1.KEYED_ERRORS, 403),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", []),
    __metadata("design:returntype", tools_dto_1.ToolList)
], ToolsController.prototype, "list", null);
exports.ToolsController = ToolsController = __decorate([
    (0, swagger_1.ApiTags)('tools'),
    (0, swagger_1.ApiBearerAuth)(),
    (0, common_1.Controller)(tool_decorator_1.TOOLS_PATH),
    __metadata("design:paramtypes", [tool_registry_1.ToolRegistry])
], ToolsController);
//# sourceMappingURL=tools.controller.js.map