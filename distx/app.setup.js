"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.bootLogger = void 0;
exports.isJsonMediaType = isJsonMediaType;
exports.configureApp = configureApp;
const common_1 = require("@nestjs/common");
const helmet_1 = __importDefault(require("helmet"));
const nestjs_pino_1 = require("nestjs-pino");
const node_crypto_1 = require("node:crypto");
const openapi_1 = require("./docs/openapi");
const validation_1 = require("./errors/validation");
const logging_module_1 = require("./logging/logging.module");
const http_metrics_1 = require("./metrics/http-metrics");
const metrics_service_1 = require("./metrics/metrics.service");
const settings_1 = require("./settings/settings");
const tool_registry_1 = require("./tools/tool.registry");
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
function isJsonMediaType(contentType) {
    if (contentType === undefined)
        return true;
    const type = contentType.split(';')[0].trim().toLowerCase();
    return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}
function requestId(req, res, next) {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : (0, node_crypto_1.randomUUID)();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    next();
}
function hasBody(req) {
    return (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0);
}
function jsonOnly(req, res, next) {
    if (hasBody(req) && !isJsonMediaType(req.headers['content-type'])) {
        res
            .status(415)
            .json({ detail: "Unsupported Media Type: send 'Content-Type: application/json'" });
        return;
    }
    next();
}
function bodyErrors(limitBytes) {
    return (err, req, res, next) => {
        const error = err;
        const status = typeof error?.status === 'number' ? error.status : undefined;
        if (res.headersSent || status === undefined || status < 400 || status >= 500)
            return next(err);
        switch (error.type) {
            case 'entity.parse.failed':
                res.status(400).json({ detail: [validation_1.JSON_INVALID] });
                return;
            case 'entity.too.large':
                res
                    .status(413)
                    .json({ detail: `Request body too large: the limit is ${limitBytes} bytes` });
                return;
            case 'encoding.unsupported':
            case 'charset.unsupported':
                res.status(415).json({ detail: 'Unsupported Media Type: the body must be UTF-8 JSON' });
                return;
            case 'request.aborted':
                res.status(400).json({ detail: 'Request aborted' });
                return;
            default:
                res.status(status).json({
                    detail: error.code === 'Z_DATA_ERROR' || error.code === 'Z_BUF_ERROR'
                        ? 'Malformed request body: it does not match its Content-Encoding'
                        : 'Malformed request body',
                });
        }
    };
}
function configureApp(app) {
    const express = app;
    const settings = app.get(settings_1.SETTINGS);
    app.useLogger(app.get(nestjs_pino_1.Logger));
    express.disable('x-powered-by');
    express.set('trust proxy', settings.trustProxy);
    express.set('etag', false);
    app.use(requestId);
    if (!process.env.X_NOLOG) app.use(app.get(logging_module_1.HTTP_LOGGER));
    if (!process.env.X_NOMETRICS) app.use((0, http_metrics_1.httpMetricsMiddleware)(app.get(metrics_service_1.MetricsService), app.get(tool_registry_1.ToolRegistry), app.getHttpAdapter().getInstance()));
    if (!process.env.X_NOHELMET) app.use((0, helmet_1.default)());
    app.use(jsonOnly);
    express.useBodyParser('json', {
        limit: settings.bodyLimitBytes,
        strict: false,
        type: (req) => isJsonMediaType(req.headers['content-type']),
    });
    app.use(bodyErrors(settings.bodyLimitBytes));
    (0, openapi_1.setupOpenApi)(app);
    app.enableShutdownHooks([common_1.ShutdownSignal.SIGTERM, common_1.ShutdownSignal.SIGINT], {
        useProcessExit: true,
    });
    return app;
}
exports.bootLogger = new common_1.Logger('Bootstrap');
//# sourceMappingURL=app.setup.js.map