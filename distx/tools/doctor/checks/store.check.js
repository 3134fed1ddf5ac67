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
exports.StoreCheck = void 0;
const common_1 = require("@nestjs/common");
const store_1 = require("../../../store/store");
const doctor_check_1 = require("../doctor-check");
let StoreCheck = class StoreCheck {
    store;
    name = 'store';
    constructor(store) {
        this.store = store;
    }
    async run() {
        const where = `${this.store.kind} store ${this.store.describe()}`;
        try {
            await this.store.ping();
            const problems = await this.store.checkIntegrity();
            if (problems.length) {
                return (0, doctor_check_1.fail)(`The ${where} reports damage: ${problems.slice(0, 3).join('; ')}; restore it from a backup`);
            }
            return (0, doctor_check_1.pass)(`The ${where} answers and is intact`);
        }
        catch (error) {
            return (0, doctor_check_1.fail)(`The ${where} cannot be reached: ${error.message}`);
        }
    }
};
exports.StoreCheck = StoreCheck;
exports.StoreCheck = StoreCheck = __decorate([
    (0, doctor_check_1.DoctorCheck)({ order: 60 }),
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [store_1.Store])
], StoreCheck);
//# sourceMappingURL=store.check.js.map