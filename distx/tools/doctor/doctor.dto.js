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
exports.DoctorResult = exports.CheckRecordView = exports.DoctorInput = void 0;
const swagger_1 = require("@nestjs/swagger");
const fields_1 = require("../fields");
class DoctorInput {
    fix = false;
}
exports.DoctorInput = DoctorInput;
__decorate([
    (0, fields_1.BoolField)({
        description: 'When true, fixable issues are fixed, then every check runs again.',
        optional: true,
        default: false,
    }),
    __metadata("design:type", Boolean)
], DoctorInput.prototype, "fix", void 0);
class CheckRecordView {
    name;
    status;
    message;
    fixable;
}
exports.CheckRecordView = CheckRecordView;
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'Name of the check.', example: 'cache_directory' }),
    __metadata("design:type", String)
], CheckRecordView.prototype, "name", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: ['pass', 'warn', 'fail'], description: 'Outcome of the check.' }),
    __metadata("design:type", String)
], CheckRecordView.prototype, "status", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'What was found and what to do about it.' }),
    __metadata("design:type", String)
], CheckRecordView.prototype, "message", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ required: false, description: 'Present (true) when the issue can be auto-fixed.' }),
    __metadata("design:type", Boolean)
], CheckRecordView.prototype, "fixable", void 0);
class DoctorResult {
    checks;
    has_failures;
}
exports.DoctorResult = DoctorResult;
__decorate([
    (0, swagger_1.ApiProperty)({ type: [CheckRecordView], description: 'All checks run, in a stable order.' }),
    __metadata("design:type", Array)
], DoctorResult.prototype, "checks", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'Whether any check failed.' }),
    __metadata("design:type", Boolean)
], DoctorResult.prototype, "has_failures", void 0);
//# sourceMappingURL=doctor.dto.js.map