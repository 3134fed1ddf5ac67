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
exports.ApiKeysCheck = void 0;
const common_1 = require("@nestjs/common");
const api_keys_service_1 = require("../../../auth/api-keys.service");
const scopes_1 = require("../../../auth/scopes");
const store_1 = require("../../../store/store");
const doctor_check_1 = require("../doctor-check");
let ApiKeysCheck = class ApiKeysCheck {
    store;
    name = 'api_keys';
    constructor(store) {
        this.store = store;
    }
    async run() {
        const now = new Date();
        const keys = await this.store.listKeys();
        const usable = keys.filter((key) => (0, api_keys_service_1.keyStatus)(key, now) === 'active' && (0, scopes_1.hasScope)(key.scopes, 'services:execute'));
        if (usable.length) {
            return (0, doctor_check_1.pass)(`${usable.length} active key(s) can call tools (scope services:execute)`);
        }
        return (0, doctor_check_1.warn)(`No active API key has the scope services:execute (${keys.length} key(s) in all), so no one can call a tool; create one: npm run --silent cli -- keys create --name <name> --template standard`);
    }
};
exports.ApiKeysCheck = ApiKeysCheck;
exports.ApiKeysCheck = ApiKeysCheck = __decorate([
    (0, doctor_check_1.DoctorCheck)({ order: 80 }),
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [store_1.Store])
], ApiKeysCheck);
//# sourceMappingURL=api-keys.check.js.map