"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.fail = exports.warn = exports.pass = exports.DoctorCheck = void 0;
const core_1 = require("@nestjs/core");
exports.DoctorCheck = core_1.DiscoveryService.createDecorator();
const pass = (message) => ({ status: 'pass', message });
exports.pass = pass;
const warn = (message, fixable = false) => ({
    status: 'warn',
    message,
    ...(fixable ? { fixable } : {}),
});
exports.warn = warn;
const fail = (message, fixable = false) => ({
    status: 'fail',
    message,
    ...(fixable ? { fixable } : {}),
});
exports.fail = fail;
//# sourceMappingURL=doctor-check.js.map