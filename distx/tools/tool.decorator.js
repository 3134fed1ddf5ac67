"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.TOOL_SCOPE = exports.TOOL_METADATA = exports.TOOLS_PATH = void 0;
exports.Tool = Tool;
exports.ToolController = ToolController;
const common_1 = require("@nestjs/common");
const swagger_1 = require("@nestjs/swagger");
const auth_decorators_1 = require("../auth/auth.decorators");
const api_errors_1 = require("../docs/api-errors");
exports.TOOLS_PATH = 'api/v1/services';
exports.TOOL_METADATA = 'tool:definition';
exports.TOOL_SCOPE = 'services:execute';
function Tool(definition) {
    if (!/^[a-z][a-z0-9_]*$/.test(definition.name)) {
        throw new Error(`Tool name '${definition.name}' must match [a-z][a-z0-9_]*`);
    }
    return (0, common_1.applyDecorators)((0, common_1.SetMetadata)(exports.TOOL_METADATA, definition), (0, common_1.Post)(definition.name), (0, common_1.HttpCode)(200), (0, auth_decorators_1.Scopes)([exports.TOOL_SCOPE]), (0, swagger_1.ApiOperation)({ operationId: definition.name, summary: definition.description }), (0, swagger_1.ApiBody)({ type: definition.input }), (0, swagger_1.ApiOkResponse)({ type: definition.output, description: 'The tool ran.' }), (0, api_errors_1.ApiErrors)(...api_errors_1.BODY_ERRORS, ...api_errors_1.KEYED_ERRORS, 402, 403));
}
function ToolController() {
    return (0, common_1.applyDecorators)((0, common_1.Controller)(exports.TOOLS_PATH), (0, swagger_1.ApiTags)('tools'), (0, swagger_1.ApiBearerAuth)());
}
//# sourceMappingURL=tool.decorator.js.map