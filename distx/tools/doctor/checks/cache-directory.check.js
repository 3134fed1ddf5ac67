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
exports.CacheDirectoryCheck = void 0;
const common_1 = require("@nestjs/common");
const promises_1 = require("node:fs/promises");
const node_path_1 = require("node:path");
const settings_1 = require("../../../settings/settings");
const config_service_1 = require("../../config/config.service");
const doctor_check_1 = require("../doctor-check");
let CacheDirectoryCheck = class CacheDirectoryCheck {
    config;
    settings;
    name = 'cache_directory';
    constructor(config, settings) {
        this.config = config;
        this.settings = settings;
    }
    async state() {
        const enabled = (await this.config.resolve('llm_config.cache_enabled')).value === true;
        const { value, layer } = await this.config.resolve('llm_config.cache_dir');
        const dir = (0, node_path_1.resolve)(this.settings.dataDir, String(value));
        const inside = (0, node_path_1.relative)(this.settings.dataDir, dir);
        const withinData = inside !== '' && !inside.startsWith('..') && !(0, node_path_1.isAbsolute)(inside);
        return { enabled, dir, creatable: withinData || layer !== 'override' };
    }
    async onApplicationBootstrap() {
        const outcome = await this.run().catch(() => undefined);
        if (outcome?.fixable)
            await this.fix().catch(() => undefined);
    }
    async run() {
        const { enabled, dir, creatable } = await this.state();
        if (!enabled)
            return (0, doctor_check_1.pass)('Caching is off (llm_config.cache_enabled is false): no cache directory needed');
        try {
            if ((await (0, promises_1.stat)(dir)).isDirectory())
                return (0, doctor_check_1.pass)(`Cache directory ${dir} exists`);
            return (0, doctor_check_1.fail)(`Cache path ${dir} exists but is not a directory; move it away or set llm_config.cache_dir`);
        }
        catch {
            return creatable
                ? (0, doctor_check_1.warn)(`Cache directory ${dir} is missing while llm_config.cache_enabled is true; fix creates it`, true)
                : (0, doctor_check_1.warn)(`Cache directory ${dir} is missing while llm_config.cache_enabled is true; it was set through config_set outside DATA_DIR, so create it by hand or set llm_config.cache_dir`);
        }
    }
    async fix() {
        const { enabled, dir, creatable } = await this.state();
        if (enabled && creatable)
            await (0, promises_1.mkdir)(dir, { recursive: true, mode: 0o700 });
    }
};
exports.CacheDirectoryCheck = CacheDirectoryCheck;
exports.CacheDirectoryCheck = CacheDirectoryCheck = __decorate([
    (0, doctor_check_1.DoctorCheck)({ order: 70 }),
    (0, common_1.Injectable)(),
    __param(1, (0, common_1.Inject)(settings_1.SETTINGS)),
    __metadata("design:paramtypes", [config_service_1.ConfigService, Object])
], CacheDirectoryCheck);
//# sourceMappingURL=cache-directory.check.js.map