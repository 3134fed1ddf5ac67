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
exports.ConfigOverridesCheck = void 0;
const common_1 = require("@nestjs/common");
const config_service_1 = require("../../config/config.service");
const doctor_check_1 = require("../doctor-check");
let ConfigOverridesCheck = class ConfigOverridesCheck {
    config;
    name = 'config_overrides';
    constructor(config) {
        this.config = config;
    }
    async run() {
        const snapshot = await this.config.snapshot();
        const invalid = snapshot.invalidOverrides;
        if (!invalid.length) {
            return (0, doctor_check_1.pass)(`${snapshot.overrides.size} stored override(s), all valid`);
        }
        const list = invalid.map(({ key, reason }) => `'${key}' (${reason})`).join('; ');
        return (0, doctor_check_1.warn)(`Invalid stored override(s), ignored: ${list}; fix removes them`, true);
    }
    async fix() {
        for (const { key } of await this.config.invalidOverrides()) {
            await this.config.removeOverride(key);
        }
    }
};
exports.ConfigOverridesCheck = ConfigOverridesCheck;
exports.ConfigOverridesCheck = ConfigOverridesCheck = __decorate([
    (0, doctor_check_1.DoctorCheck)({ order: 30 }),
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [config_service_1.ConfigService])
], ConfigOverridesCheck);
//# sourceMappingURL=config-overrides.check.js.map