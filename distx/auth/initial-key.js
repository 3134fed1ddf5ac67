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
exports.InitialKeyBootstrap = exports.INITIAL_KEY_FILE = void 0;
const common_1 = require("@nestjs/common");
const node_fs_1 = require("node:fs");
const node_path_1 = require("node:path");
const settings_1 = require("../settings/settings");
const api_keys_service_1 = require("./api-keys.service");
exports.INITIAL_KEY_FILE = 'initial-api-key';
let InitialKeyBootstrap = class InitialKeyBootstrap {
    keys;
    settings;
    logger = new common_1.Logger('InitialKey');
    constructor(keys, settings) {
        this.keys = keys;
        this.settings = settings;
    }
    async onApplicationBootstrap() {
        const created = await this.keys.createInitial();
        if (!created)
            return;
        const file = (0, node_path_1.join)(this.settings.dataDir, exports.INITIAL_KEY_FILE);
        (0, node_fs_1.mkdirSync)(this.settings.dataDir, { recursive: true, mode: 0o700 });
        (0, node_fs_1.writeFileSync)(file, `${created.key}\n`, { mode: 0o600 });
        (0, node_fs_1.chmodSync)(file, 0o600);
        this.logger.warn(`No API key existed: created admin key ${created.record.id} (${created.record.prefix}...). Its text is in ${file}; store it safely and delete the file.`);
    }
};
exports.InitialKeyBootstrap = InitialKeyBootstrap;
exports.InitialKeyBootstrap = InitialKeyBootstrap = __decorate([
    (0, common_1.Injectable)(),
    __param(1, (0, common_1.Inject)(settings_1.SETTINGS)),
    __metadata("design:paramtypes", [api_keys_service_1.ApiKeysService, Object])
], InitialKeyBootstrap);
//# sourceMappingURL=initial-key.js.map