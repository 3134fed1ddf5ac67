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
exports.DoctorService = void 0;
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const settings_1 = require("../../settings/settings");
const doctor_check_1 = require("./doctor-check");
class TimedOut extends Error {
}
function withTimeout(work, ms) {
    let timer;
    const limit = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new TimedOut()), ms);
    });
    return Promise.race([Promise.resolve().then(work), limit]).finally(() => clearTimeout(timer));
}
let DoctorService = class DoctorService {
    discovery;
    settings;
    logger = new common_1.Logger('Doctor');
    checks = [];
    constructor(discovery, settings) {
        this.discovery = discovery;
        this.settings = settings;
    }
    onModuleInit() {
        this.checks = this.discovery
            .getProviders({ metadataKey: doctor_check_1.DoctorCheck.KEY })
            .filter((wrapper) => wrapper.isDependencyTreeStatic() && wrapper.instance)
            .map((wrapper) => ({
            check: wrapper.instance,
            order: this.discovery.getMetadataByDecorator(doctor_check_1.DoctorCheck, wrapper)?.order ?? 1000,
        }))
            .sort((a, b) => a.order - b.order || a.check.name.localeCompare(b.check.name))
            .map(({ check }) => check);
    }
    names() {
        return this.checks.map((check) => check.name);
    }
    async run(fix = false) {
        let outcomes = await this.runAll();
        if (fix) {
            const fixing = this.checks.filter((check, i) => outcomes[i].fixable && outcomes[i].status !== 'pass');
            if (fixing.length) {
                await Promise.all(fixing.map((check) => this.fixOne(check)));
                outcomes = await this.runAll();
            }
        }
        const checks = this.checks.map((check, i) => ({ name: check.name, ...outcomes[i] }));
        return { checks, has_failures: checks.some((c) => c.status === 'fail') };
    }
    runAll() {
        return Promise.all(this.checks.map((check) => this.runOne(check)));
    }
    async runOne(check) {
        const ms = this.settings.doctor.checkTimeoutMs;
        try {
            return await withTimeout(() => check.run(), ms);
        }
        catch (error) {
            if (error instanceof TimedOut) {
                return (0, doctor_check_1.fail)(`The check did not finish within ${ms} ms; whatever it inspects is hanging.`);
            }
            this.logger.error({ err: error }, `Doctor check ${check.name} failed`);
            return (0, doctor_check_1.fail)(`The check itself failed: ${error.message}`);
        }
    }
    async fixOne(check) {
        try {
            await withTimeout(() => check.fix(), this.settings.doctor.checkTimeoutMs);
        }
        catch (error) {
            this.logger.warn({ err: error }, `Doctor fix of ${check.name} failed`);
        }
    }
};
exports.DoctorService = DoctorService;
exports.DoctorService = DoctorService = __decorate([
    (0, common_1.Injectable)(),
    __param(1, (0, common_1.Inject)(settings_1.SETTINGS)),
    __metadata("design:paramtypes", [core_1.DiscoveryService, Object])
], DoctorService);
//# sourceMappingURL=doctor.service.js.map