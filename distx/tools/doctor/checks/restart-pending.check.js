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
exports.RestartPendingCheck = void 0;
const common_1 = require("@nestjs/common");
const config_service_1 = require("../../config/config.service");
const doctor_check_1 = require("../doctor-check");
let RestartPendingCheck = class RestartPendingCheck {
    config;
    name = 'restart_pending';
    constructor(config) {
        this.config = config;
    }
    async run() {
        const pending = await this.config.pendingRestart();
        if (!pending.length)
            return (0, doctor_check_1.pass)('The process runs with the configured server settings');
        const list = pending
            .map(({ key, running, configured }) => `${key} is ${JSON.stringify(configured)} but runs as ${JSON.stringify(running)}`)
            .join('; ');
        return (0, doctor_check_1.warn)(`Restart the service to apply: ${list}`);
    }
};
exports.RestartPendingCheck = RestartPendingCheck;
exports.RestartPendingCheck = RestartPendingCheck = __decorate([
    (0, doctor_check_1.DoctorCheck)({ order: 40 }),
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [config_service_1.ConfigService])
], RestartPendingCheck);
//# sourceMappingURL=restart-pending.check.js.map