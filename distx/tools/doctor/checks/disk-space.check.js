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
exports.DiskSpaceCheck = void 0;
const common_1 = require("@nestjs/common");
const promises_1 = require("node:fs/promises");
const settings_1 = require("../../../settings/settings");
const doctor_check_1 = require("../doctor-check");
const MB = 1024 * 1024;
function human(bytes) {
    return bytes >= 1024 * MB
        ? `${(bytes / (1024 * MB)).toFixed(1)} GiB`
        : `${Math.floor(bytes / MB)} MiB`;
}
let DiskSpaceCheck = class DiskSpaceCheck {
    settings;
    name = 'disk_space';
    constructor(settings) {
        this.settings = settings;
    }
    async run() {
        const dir = this.settings.dataDir;
        const fs = await (0, promises_1.statfs)(dir);
        const free = fs.bavail * fs.bsize;
        const { diskWarnMb, diskFailMb } = this.settings.doctor;
        const text = `${human(free)} free on the file system of ${dir}`;
        if (free < diskFailMb * MB)
            return (0, doctor_check_1.fail)(`Only ${text} (below ${diskFailMb} MiB); free space now`);
        if (free < diskWarnMb * MB)
            return (0, doctor_check_1.warn)(`Only ${text} (below ${diskWarnMb} MiB); free some space soon`);
        return (0, doctor_check_1.pass)(text);
    }
};
exports.DiskSpaceCheck = DiskSpaceCheck;
exports.DiskSpaceCheck = DiskSpaceCheck = __decorate([
    (0, doctor_check_1.DoctorCheck)({ order: 90 }),
    (0, common_1.Injectable)(),
    __param(0, (0, common_1.Inject)(settings_1.SETTINGS)),
    __metadata("design:paramtypes", [Object])
], DiskSpaceCheck);
//# sourceMappingURL=disk-space.check.js.map