"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.RuntimeVersionCheck = exports.MIN_NODE = void 0;
exports.satisfiesMinimum = satisfiesMinimum;
exports.runtimeOutcome = runtimeOutcome;
const common_1 = require("@nestjs/common");
const doctor_check_1 = require("../doctor-check");
exports.MIN_NODE = [20, 19, 0];
function satisfiesMinimum(version, minimum = exports.MIN_NODE) {
    const parts = version.replace(/^v/, '').split('.').map(Number);
    for (let i = 0; i < minimum.length; i++) {
        if ((parts[i] ?? 0) !== minimum[i])
            return (parts[i] ?? 0) > minimum[i];
    }
    return true;
}
function runtimeOutcome(version) {
    const minimum = exports.MIN_NODE.join('.');
    return satisfiesMinimum(version)
        ? (0, doctor_check_1.pass)(`Node.js ${version} (needs ${minimum} or later)`)
        : (0, doctor_check_1.fail)(`Node.js ${version} is older than ${minimum}; upgrade Node.js to ${minimum} or later`);
}
let RuntimeVersionCheck = class RuntimeVersionCheck {
    name = 'runtime_version';
    run() {
        return Promise.resolve(runtimeOutcome(process.versions.node));
    }
};
exports.RuntimeVersionCheck = RuntimeVersionCheck;
exports.RuntimeVersionCheck = RuntimeVersionCheck = __decorate([
    (0, doctor_check_1.DoctorCheck)({ order: 10 }),
    (0, common_1.Injectable)()
], RuntimeVersionCheck);
//# sourceMappingURL=runtime-version.check.js.map