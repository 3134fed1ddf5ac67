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
exports.AllExceptionsFilter = exports.STORE_UNAVAILABLE = exports.STATUS_TEXT = void 0;
exports.detailOf = detailOf;
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const store_1 = require("../store/store");
const api_error_1 = require("./api-error");
const routes_1 = require("./routes");
const ROUTE_NOT_FOUND = /^Cannot [A-Z]+ /;
exports.STATUS_TEXT = {
    400: 'Bad Request',
    401: 'Not authenticated',
    403: 'Insufficient permissions for this operation.',
    404: 'Not Found',
    405: 'Method Not Allowed',
    408: 'Request Timeout',
    409: 'Conflict',
    413: 'Request body too large',
    415: 'Unsupported Media Type',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    503: 'Service Unavailable',
};
exports.STORE_UNAVAILABLE = {
    status: common_1.HttpStatus.SERVICE_UNAVAILABLE,
    detail: 'Service temporarily unavailable: the data store cannot be reached. Retry shortly.',
    headers: { 'Retry-After': 1 },
};
let AllExceptionsFilter = class AllExceptionsFilter {
    adapterHost;
    logger = new common_1.Logger('Errors');
    constructor(adapterHost) {
        this.adapterHost = adapterHost;
    }
    catch(exception, host) {
        if (host.getType() !== 'http')
            throw exception;
        const ctx = host.switchToHttp();
        const req = ctx.getRequest();
        const res = ctx.getResponse();
        const answer = this.answerFor(exception, req);
        if (res.headersSent) {
            res.end();
            return;
        }
        for (const [name, value] of Object.entries(answer.headers))
            res.setHeader(name, value);
        this.adapterHost.httpAdapter.reply(res, { detail: answer.detail }, answer.status);
    }
    answerFor(exception, req) {
        if (exception instanceof store_1.StoreUnavailableError) {
            this.logger.error({ err: exception }, 'Store unavailable');
            return exports.STORE_UNAVAILABLE;
        }
        if (!(exception instanceof common_1.HttpException)) {
            this.logger.error({ err: exception }, `Unhandled error on ${req.method} ${req.path}`);
            return { status: 500, detail: exports.STATUS_TEXT[500], headers: {} };
        }
        const status = exception.getStatus();
        if (exception instanceof common_1.NotFoundException && ROUTE_NOT_FOUND.test(exception.message)) {
            const allow = (0, routes_1.allowedMethods)(this.adapterHost.httpAdapter.getInstance(), req.path);
            return allow.length
                ? { status: 405, detail: exports.STATUS_TEXT[405], headers: { Allow: allow.join(', ') } }
                : { status: 404, detail: exports.STATUS_TEXT[404], headers: {} };
        }
        if (status >= 500)
            this.logger.error({ err: exception }, `Server error on ${req.method} ${req.path}`);
        const headers = exception instanceof api_error_1.ApiError ? exception.headers : {};
        return { status, detail: detailOf(exception, status), headers };
    }
};
exports.AllExceptionsFilter = AllExceptionsFilter;
exports.AllExceptionsFilter = AllExceptionsFilter = __decorate([
    (0, common_1.Catch)(),
    __metadata("design:paramtypes", [core_1.HttpAdapterHost])
], AllExceptionsFilter);
function detailOf(exception, status) {
    const body = exception.getResponse();
    if (typeof body === 'string')
        return body;
    if (body && typeof body === 'object') {
        if ('detail' in body)
            return body.detail;
        if ('message' in body && typeof body.message === 'string' && status < 500)
            return body.message;
    }
    return exports.STATUS_TEXT[status] ?? 'Error';
}
//# sourceMappingURL=all-exceptions.filter.js.map