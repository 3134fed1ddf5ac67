"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.ConfigModule = exports.ConfigSectionModule = void 0;
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const config_controller_1 = require("./config.controller");
const config_schema_1 = require("./config.schema");
const config_service_1 = require("./config.service");
let ConfigSectionModule = class ConfigSectionModule {
};
exports.ConfigSectionModule = ConfigSectionModule;
exports.ConfigSectionModule = ConfigSectionModule = __decorate([
    (0, common_1.Module)({})
], ConfigSectionModule);
let ConfigModule = class ConfigModule {
    static forFeature(section) {
        return {
            module: ConfigSectionModule,
            providers: [
                { provide: `ConfigSection:${section.name}`, useValue: new config_schema_1.ConfigSection(section) },
            ],
        };
    }
};
exports.ConfigModule = ConfigModule;
exports.ConfigModule = ConfigModule = __decorate([
    (0, common_1.Global)(),
    (0, common_1.Module)({
        imports: [core_1.DiscoveryModule],
        controllers: [config_controller_1.ConfigController],
        providers: [config_service_1.ConfigService],
        exports: [config_service_1.ConfigService],
    })
], ConfigModule);
//# sourceMappingURL=config.module.js.map