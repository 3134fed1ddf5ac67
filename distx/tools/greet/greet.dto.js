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
exports.GreetResult = exports.GreetInput = void 0;
const swagger_1 = require("@nestjs/swagger");
const fields_1 = require("../fields");
class GreetInput {
    name;
    shout = false;
    times = 1;
}
exports.GreetInput = GreetInput;
__decorate([
    (0, fields_1.StringField)({ description: 'Name to greet.', minLength: 1, maxLength: 200, example: 'Alice' }),
    __metadata("design:type", String)
], GreetInput.prototype, "name", void 0);
__decorate([
    (0, fields_1.BoolField)({
        description: 'When true, the greeting is uppercase.',
        optional: true,
        default: false,
    }),
    __metadata("design:type", Boolean)
], GreetInput.prototype, "shout", void 0);
__decorate([
    (0, fields_1.IntField)({
        description: 'Repetition count, echoed back; the message itself is not repeated.',
        optional: true,
        minimum: 1,
        maximum: 100,
        default: 1,
    }),
    __metadata("design:type", Number)
], GreetInput.prototype, "times", void 0);
class GreetResult {
    message;
    times;
}
exports.GreetResult = GreetResult;
__decorate([
    (0, swagger_1.ApiProperty)({
        description: 'The greeting text; uppercase when `shout` was true.',
        example: 'Hello, Alice!',
    }),
    __metadata("design:type", String)
], GreetResult.prototype, "message", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer', description: 'The repetition count.', example: 1 }),
    __metadata("design:type", Number)
], GreetResult.prototype, "times", void 0);
//# sourceMappingURL=greet.dto.js.map