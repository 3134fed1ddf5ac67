"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.DoctorModule = void 0;
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const config_module_1 = require("../config/config.module");
const api_keys_check_1 = require("./checks/api-keys.check");
const cache_directory_check_1 = require("./checks/cache-directory.check");
const config_file_check_1 = require("./checks/config-file.check");
const config_overrides_check_1 = require("./checks/config-overrides.check");
const restart_pending_check_1 = require("./checks/restart-pending.check");
const data_directory_check_1 = require("./checks/data-directory.check");
const disk_space_check_1 = require("./checks/disk-space.check");
const runtime_version_check_1 = require("./checks/runtime-version.check");
const store_check_1 = require("./checks/store.check");
const doctor_controller_1 = require("./doctor.controller");
const doctor_service_1 = require("./doctor.service");
let DoctorModule = class DoctorModule {
};
exports.DoctorModule = DoctorModule;
exports.DoctorModule = DoctorModule = __decorate([
    (0, common_1.Module)({
        imports: [core_1.DiscoveryModule, config_module_1.ConfigModule],
        controllers: [doctor_controller_1.DoctorController],
        providers: [
            doctor_service_1.DoctorService,
            runtime_version_check_1.RuntimeVersionCheck,
            config_file_check_1.ConfigFileCheck,
            config_overrides_check_1.ConfigOverridesCheck,
            restart_pending_check_1.RestartPendingCheck,
            data_directory_check_1.DataDirectoryCheck,
            store_check_1.StoreCheck,
            cache_directory_check_1.CacheDirectoryCheck,
            api_keys_check_1.ApiKeysCheck,
            disk_space_check_1.DiskSpaceCheck,
        ],
        exports: [doctor_service_1.DoctorService],
    })
], DoctorModule);
//# sourceMappingURL=doctor.module.js.map