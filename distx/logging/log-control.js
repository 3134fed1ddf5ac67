"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.LogControl = exports.LOG_LEVELS = exports.LOG_DESTINATION = exports.PINO = void 0;
const common_1 = require("@nestjs/common");
const pino_1 = __importDefault(require("pino"));
exports.PINO = Symbol('PINO');
exports.LOG_DESTINATION = Symbol('LOG_DESTINATION');
exports.LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];
let LogControl = class LogControl {
    current = 'info';
    threshold = pino_1.default.levels.values.info;
    accessLog = false;
    get level() {
        return this.current;
    }
    setLevel(level) {
        this.current = level;
        this.threshold = pino_1.default.levels.values[level];
    }
    writes(level) {
        return level >= this.threshold;
    }
    get verbose() {
        return this.accessLog;
    }
    setVerbose(on) {
        this.accessLog = on;
    }
};
exports.LogControl = LogControl;
exports.LogControl = LogControl = __decorate([
    (0, common_1.Injectable)()
], LogControl);
//# sourceMappingURL=log-control.js.map