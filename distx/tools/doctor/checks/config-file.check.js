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
exports.ConfigFileCheck = void 0;
const common_1 = require("@nestjs/common");
const settings_1 = require("../../../settings/settings");
const config_sources_1 = require("../../config/config.sources");
const config_service_1 = require("../../config/config.service");
const doctor_check_1 = require("../doctor-check");
let ConfigFileCheck = class ConfigFileCheck {
    config;
    settings;
    env;
    name = 'config_file';
    constructor(config, settings, env) {
        this.config = config;
        this.settings = settings;
        this.env = env;
    }
    run() {
        const file = this.settings.configFile;
        if (!file) {
            return Promise.resolve((0, doctor_check_1.pass)('No CONFIG_FILE is set: defaults, stored overrides and the environment apply'));
        }
        try {
            const keys = (0, config_sources_1.readConfigFile)(file, this.config.schema);
            (0, settings_1.loadSettings)(this.env);
            return Promise.resolve((0, doctor_check_1.pass)(`CONFIG_FILE ${file} is valid (${keys.size} key(s) set)`));
        }
        catch (error) {
            return Promise.resolve((0, doctor_check_1.fail)(`${error.message}; fix the file: the next start would refuse it (this process still runs with what it read at start-up)`));
        }
    }
};
exports.ConfigFileCheck = ConfigFileCheck;
exports.ConfigFileCheck = ConfigFileCheck = __decorate([
    (0, doctor_check_1.DoctorCheck)({ order: 20 }),
    (0, common_1.Injectable)(),
    __param(1, (0, common_1.Inject)(settings_1.SETTINGS)),
    __param(2, (0, common_1.Inject)(settings_1.ENVIRONMENT)),
    __metadata("design:paramtypes", [config_service_1.ConfigService, Object, Object])
], ConfigFileCheck);
//# sourceMappingURL=config-file.check.js.map