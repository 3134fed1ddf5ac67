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
exports.ConfigSetResult = exports.ConfigSetInput = exports.ConfigGetResult = exports.ConfigGetInput = exports.ConfigShowResult = exports.ConfigShowInput = void 0;
const swagger_1 = require("@nestjs/swagger");
const fields_1 = require("../fields");
const config_schema_1 = require("./config.schema");
const KEY_FIELD = {
    description: 'Dot-separated configuration path, such as `logging.level` or `server`.',
    minLength: 1,
    maxLength: config_schema_1.MAX_KEY_LENGTH,
    example: 'logging.level',
};
const SCALAR_SCHEMAS = [
    { type: 'boolean' },
    { type: 'integer' },
    { type: 'number' },
    { type: 'string' },
];
class ConfigShowInput {
}
exports.ConfigShowInput = ConfigShowInput;
class ConfigShowResult {
    config;
}
exports.ConfigShowResult = ConfigShowResult;
__decorate([
    (0, swagger_1.ApiProperty)({
        type: 'object',
        additionalProperties: true,
        description: 'The effective configuration tree; secrets that are set read "********".',
        example: {
            logging: { level: 'info', verbose: false },
            server: { host: '0.0.0.0', port: 8000 },
        },
    }),
    __metadata("design:type", Object)
], ConfigShowResult.prototype, "config", void 0);
class ConfigGetInput {
    key;
}
exports.ConfigGetInput = ConfigGetInput;
__decorate([
    (0, fields_1.StringField)(KEY_FIELD),
    __metadata("design:type", String)
], ConfigGetInput.prototype, "key", void 0);
class ConfigGetResult {
    key;
    value;
}
exports.ConfigGetResult = ConfigGetResult;
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'The requested path, echoed.', example: 'logging.level' }),
    __metadata("design:type", String)
], ConfigGetResult.prototype, "key", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({
        description: "The value in its own type; a section's object for a section key.",
        anyOf: [...SCALAR_SCHEMAS, { type: 'object', additionalProperties: true }],
        example: 'info',
    }),
    __metadata("design:type", Object)
], ConfigGetResult.prototype, "value", void 0);
class ConfigSetInput {
    key;
    value;
}
exports.ConfigSetInput = ConfigSetInput;
__decorate([
    (0, fields_1.StringField)(KEY_FIELD),
    __metadata("design:type", String)
], ConfigSetInput.prototype, "key", void 0);
__decorate([
    (0, fields_1.StringField)({
        description: 'The new value as a string, coerced: true/yes/false/no (any case), integer, decimal, else the string itself.',
        maxLength: config_schema_1.MAX_VALUE_LENGTH,
        example: 'debug',
    }),
    __metadata("design:type", String)
], ConfigSetInput.prototype, "value", void 0);
class ConfigSetResult {
    key;
    coerced_value;
}
exports.ConfigSetResult = ConfigSetResult;
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'The path that was set.', example: 'logging.level' }),
    __metadata("design:type", String)
], ConfigSetResult.prototype, "key", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({
        description: 'The value after coercion, as stored; "********" for a secret.',
        anyOf: SCALAR_SCHEMAS,
        example: 'debug',
    }),
    __metadata("design:type", Object)
], ConfigSetResult.prototype, "coerced_value", void 0);
//# sourceMappingURL=config.dto.js.map