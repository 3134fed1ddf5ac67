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
exports.DoctorController = void 0;
const common_1 = require("@nestjs/common");
const tool_decorator_1 = require("../tool.decorator");
const doctor_dto_1 = require("./doctor.dto");
const doctor_service_1 = require("./doctor.service");
let DoctorController = class DoctorController {
    doctor;
    constructor(doctor) {
        this.doctor = doctor;
    }
    doctorTool(input) {
        return this.doctor.run(input.fix);
    }
};
exports.DoctorController = DoctorController;
__decorate([
    (0, tool_decorator_1.Tool)({
        name: 'doctor',
        description: 'Run project health checks, optionally auto-fixing fixable issues.',
        input: doctor_dto_1.DoctorInput,
        output: doctor_dto_1.DoctorResult,
    }),
    __param(0, (0, common_1.Body)()),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [doctor_dto_1.DoctorInput]),
    __metadata("design:returntype", Promise)
], DoctorController.prototype, "doctorTool", null);
exports.DoctorController = DoctorController = __decorate([
    (0, tool_decorator_1.ToolController)(),
    __metadata("design:paramtypes", [doctor_service_1.DoctorService])
], DoctorController);
//# sourceMappingURL=doctor.controller.js.map