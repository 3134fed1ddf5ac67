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
exports.DataDirectoryCheck = void 0;
const common_1 = require("@nestjs/common");
const node_crypto_1 = require("node:crypto");
const promises_1 = require("node:fs/promises");
const node_path_1 = require("node:path");
const settings_1 = require("../../../settings/settings");
const doctor_check_1 = require("../doctor-check");
let DataDirectoryCheck = class DataDirectoryCheck {
    settings;
    name = 'data_directory';
    constructor(settings) {
        this.settings = settings;
    }
    async run() {
        const dir = this.settings.dataDir;
        try {
            if (!(await (0, promises_1.stat)(dir)).isDirectory()) {
                return (0, doctor_check_1.fail)(`DATA_DIR ${dir} is not a directory; point DATA_DIR at a writable directory`);
            }
            const probe = (0, node_path_1.join)(dir, `.doctor-${(0, node_crypto_1.randomBytes)(6).toString('hex')}`);
            const handle = await (0, promises_1.open)(probe, 'wx', 0o600);
            try {
                await handle.writeFile('ok');
                await handle.sync();
            }
            finally {
                await handle.close();
                await (0, promises_1.unlink)(probe);
            }
            return (0, doctor_check_1.pass)(`Data directory ${dir} is writable`);
        }
        catch (error) {
            const code = error.code ?? 'error';
            return (0, doctor_check_1.fail)(`Data directory ${dir} is not writable (${code}); give the service's user write access to it (and check the disk is not read-only)`);
        }
    }
};
exports.DataDirectoryCheck = DataDirectoryCheck;
exports.DataDirectoryCheck = DataDirectoryCheck = __decorate([
    (0, doctor_check_1.DoctorCheck)({ order: 50 }),
    (0, common_1.Injectable)(),
    __param(0, (0, common_1.Inject)(settings_1.SETTINGS)),
    __metadata("design:paramtypes", [Object])
], DataDirectoryCheck);
//# sourceMappingURL=data-directory.check.js.map