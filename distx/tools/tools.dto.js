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
exports.ToolList = exports.ToolView = void 0;
const swagger_1 = require("@nestjs/swagger");
const JSON_SCHEMA = { type: 'object', additionalProperties: true };
class ToolView {
    name;
    description;
    method;
    path;
    input_schema;
    output_schema;
}
exports.ToolView = ToolView;
__decorate([
    (0, swagger_1.ApiProperty)({ example: 'greet', pattern: '^[a-z][a-z0-9_]*$' }),
    __metadata("design:type", String)
], ToolView.prototype, "name", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ example: 'Greet a user by name.' }),
    __metadata("design:type", String)
], ToolView.prototype, "description", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: ['POST'] }),
    __metadata("design:type", String)
], ToolView.prototype, "method", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ example: '/api/v1/services/greet' }),
    __metadata("design:type", String)
], ToolView.prototype, "path", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({
        ...JSON_SCHEMA,
        description: 'JSON Schema of the request body, from the definitions that validate it.',
    }),
    __metadata("design:type", Object)
], ToolView.prototype, "input_schema", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ ...JSON_SCHEMA, description: 'JSON Schema of the 200 response body.' }),
    __metadata("design:type", Object)
], ToolView.prototype, "output_schema", void 0);
class ToolList {
    tools;
}
exports.ToolList = ToolList;
__decorate([
    (0, swagger_1.ApiProperty)({ type: [ToolView] }),
    __metadata("design:type", Array)
], ToolList.prototype, "tools", void 0);
//# sourceMappingURL=tools.dto.js.map