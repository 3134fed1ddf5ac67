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
exports.StderrLoggingModule = exports.LoggingModule = exports.HTTP_LOGGER = exports.StderrLogCoreModule = exports.LogCoreModule = exports.REDACTED_PATHS = void 0;
const common_1 = require("@nestjs/common");
const nestjs_pino_1 = require("nestjs-pino");
const pino_1 = __importDefault(require("pino"));
const pino_http_1 = require("pino-http");
const log_control_1 = require("./log-control");
exports.REDACTED_PATHS = [
    'req.headers.authorization',
    'req.headers.cookie',
    'headers.authorization',
    'authorization',
    'key',
    '*.key',
];
function createPino(destination, control) {
    return (0, pino_1.default)({
        level: 'trace',
        hooks: {
            logMethod(args, method, level) {
                if (control.writes(level))
                    method.apply(this, args);
            },
        },
        base: undefined,
        timestamp: pino_1.default.stdTimeFunctions.isoTime,
        redact: { paths: exports.REDACTED_PATHS, censor: '[redacted]' },
        formatters: { level: (label) => ({ level: label }) },
    }, destination);
}
function logCoreProviders(fd) {
    return [
        { provide: log_control_1.LOG_DESTINATION, useFactory: () => pino_1.default.destination({ dest: fd, sync: fd === 2 }) },
        log_control_1.LogControl,
        { provide: log_control_1.PINO, inject: [log_control_1.LOG_DESTINATION, log_control_1.LogControl], useFactory: createPino },
    ];
}
let LogCoreModule = class LogCoreModule {
};
exports.LogCoreModule = LogCoreModule;
exports.LogCoreModule = LogCoreModule = __decorate([
    (0, common_1.Global)(),
    (0, common_1.Module)({ providers: logCoreProviders(1), exports: [log_control_1.PINO, log_control_1.LogControl, log_control_1.LOG_DESTINATION] })
], LogCoreModule);
let StderrLogCoreModule = class StderrLogCoreModule {
};
exports.StderrLogCoreModule = StderrLogCoreModule;
exports.StderrLogCoreModule = StderrLogCoreModule = __decorate([
    (0, common_1.Global)(),
    (0, common_1.Module)({ providers: logCoreProviders(2), exports: [log_control_1.PINO, log_control_1.LogControl, log_control_1.LOG_DESTINATION] })
], StderrLogCoreModule);
function httpLoggerOptions(logger, control) {
    return {
        logger,
        genReqId: (req) => req.id,
        autoLogging: { ignore: () => !control.verbose },
        customProps: (req) => (process.env.X_LAZYPROPS ? (req.apiKey ? { key_id: req.apiKey.id } : undefined) : ({ key_id: req.apiKey?.id })),
        serializers: {
            req: (req) => ({
                id: req.id,
                method: req.method,
                url: req.url,
                remote_address: req.remoteAddress,
            }),
            res: (res) => ({ status_code: res.statusCode }),
        },
    };
}
exports.HTTP_LOGGER = Symbol('HTTP_LOGGER');
let LoggingModule = class LoggingModule {
};
exports.LoggingModule = LoggingModule;
exports.LoggingModule = LoggingModule = __decorate([
    (0, common_1.Module)({
        imports: [
            LogCoreModule,
            nestjs_pino_1.LoggerModule.forRootAsync({
                imports: [LogCoreModule],
                inject: [log_control_1.PINO],
                useFactory: (logger) => ({ pinoHttp: { logger }, useExisting: true }),
            }),
        ],
        providers: [
            {
                provide: exports.HTTP_LOGGER,
                inject: [log_control_1.PINO, log_control_1.LogControl],
                useFactory: (logger, control) => (0, pino_http_1.pinoHttp)(httpLoggerOptions(logger, control)),
            },
        ],
        exports: [LogCoreModule, exports.HTTP_LOGGER],
    })
], LoggingModule);
let StderrLoggingModule = class StderrLoggingModule {
};
exports.StderrLoggingModule = StderrLoggingModule;
exports.StderrLoggingModule = StderrLoggingModule = __decorate([
    (0, common_1.Module)({
        imports: [
            StderrLogCoreModule,
            nestjs_pino_1.LoggerModule.forRootAsync({
                imports: [StderrLogCoreModule],
                inject: [log_control_1.PINO],
                useFactory: (logger) => ({ pinoHttp: { logger } }),
            }),
        ],
        exports: [StderrLogCoreModule],
    })
], StderrLoggingModule);
//# sourceMappingURL=logging.module.js.map