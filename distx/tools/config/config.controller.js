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
exports.ConfigController = void 0;
const common_1 = require("@nestjs/common");
const tool_decorator_1 = require("../tool.decorator");
const config_dto_1 = require("./config.dto");
const config_service_1 = require("./config.service");
let ConfigController = class ConfigController {
    config;
    constructor(config) {
        this.config = config;
    }
    async show(_input) {
        return { config: await this.config.tree({ redact: true }) };
    }
    async get({ key }) {
        return { key, value: await this.config.get(key, { redact: true }) };
    }
    async set({ key, value }) {
        const stored = await this.config.set(key, value);
        return { key, coerced_value: this.config.redact(key, stored) };
    }
};
exports.ConfigController = ConfigController;
__decorate([
    (0, tool_decorator_1.Tool)({
        name: 'config_show',
        description: 'Return the full project configuration.',
        input: config_dto_1.ConfigShowInput,
        output: config_dto_1.ConfigShowResult,
    }),
    __param(0, (0, common_1.Body)()),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [config_dto_1.ConfigShowInput]),
    __metadata("design:returntype", Promise)
], ConfigController.prototype, "show", null);
__decorate([
    (0, tool_decorator_1.Tool)({
        name: 'config_get',
        description: 'Return one configuration value by dot-separated key.',
        input: config_dto_1.ConfigGetInput,
        output: config_dto_1.ConfigGetResult,
    }),
    __param(0, (0, common_1.Body)()),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [config_dto_1.ConfigGetInput]),
    __metadata("design:returntype", Promise)
], ConfigController.prototype, "get", null);
__decorate([
    (0, tool_decorator_1.Tool)({
        name: 'config_set',
        description: 'Set a configuration override. The value is coerced to a type.',
        input: config_dto_1.ConfigSetInput,
        output: config_dto_1.ConfigSetResult,
    }),
    __param(0, (0, common_1.Body)()),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [config_dto_1.ConfigSetInput]),
    __metadata("design:returntype", Promise)
], ConfigController.prototype, "set", null);
exports.ConfigController = ConfigController = __decorate([
    (0, tool_decorator_1.ToolController)(),
    __metadata("design:paramtypes", [config_service_1.ConfigService])
], ConfigController);
//# sourceMappingURL=config.controller.js.map