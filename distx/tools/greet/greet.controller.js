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
exports.GreetController = void 0;
const common_1 = require("@nestjs/common");
const tool_decorator_1 = require("../tool.decorator");
const greet_dto_1 = require("./greet.dto");
const greet_service_1 = require("./greet.service");
let GreetController = class GreetController {
    greeter;
    constructor(greeter) {
        this.greeter = greeter;
    }
    greet(input) {
        return this.greeter.greet(input);
    }
};
exports.GreetController = GreetController;
__decorate([
    (0, tool_decorator_1.Tool)({
        name: 'greet',
        description: 'Greet a user by name.',
        input: greet_dto_1.GreetInput,
        output: greet_dto_1.GreetResult,
    }),
    __param(0, (0, common_1.Body)()),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [greet_dto_1.GreetInput]),
    __metadata("design:returntype", greet_dto_1.GreetResult)
], GreetController.prototype, "greet", null);
exports.GreetController = GreetController = __decorate([
    (0, tool_decorator_1.ToolController)(),
    __metadata("design:paramtypes", [greet_service_1.GreetService])
], GreetController);
//# sourceMappingURL=greet.controller.js.map