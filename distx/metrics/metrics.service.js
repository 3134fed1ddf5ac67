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
exports.MetricsService = void 0;
exports.toolOutcome = toolOutcome;
const common_1 = require("@nestjs/common");
const prom_client_1 = require("prom-client");
const OUTCOME_BY_STATUS = {
    400: 'invalid_request',
    413: 'invalid_request',
    415: 'invalid_request',
    401: 'unauthenticated',
    402: 'quota_exceeded',
    403: 'forbidden',
    429: 'rate_limited',
};
function toolOutcome(status) {
    if (status < 400)
        return 'success';
    if (status >= 500)
        return 'error';
    return OUTCOME_BY_STATUS[status] ?? 'client_error';
}
let MetricsService = class MetricsService {
    registry;
    requests;
    duration;
    toolCalls;
    toolFailures;
    quotaRejections;
    rateLimitRejections;
    constructor(registry) {
        this.registry = registry;
        const registers = [registry];
        this.requests = new prom_client_1.Counter({
            name: 'http_requests_total',
            help: 'HTTP requests answered, by method, route template and status code.',
            labelNames: ['method', 'route', 'status_code'],
            registers,
        });
        this.duration = new prom_client_1.Histogram({
            name: 'http_request_duration_seconds',
            help: 'Time from receiving a request to finishing its answer, by method, route template and status code.',
            labelNames: ['method', 'route', 'status_code'],
            registers,
        });
        this.toolCalls = new prom_client_1.Counter({
            name: 'tool_calls_total',
            help: 'Calls of each tool, by outcome (success, invalid_request, unauthenticated, forbidden, rate_limited, quota_exceeded, client_error, error).',
            labelNames: ['tool', 'outcome'],
            registers,
        });
        this.toolFailures = new prom_client_1.Counter({
            name: 'tool_failures_total',
            help: 'Tool calls that failed on the server side (5xx).',
            labelNames: ['tool'],
            registers,
        });
        this.quotaRejections = new prom_client_1.Counter({
            name: 'quota_rejections_total',
            help: 'Tool calls refused because the daily quota was used up (402).',
            labelNames: ['tool'],
            registers,
        });
        this.rateLimitRejections = new prom_client_1.Counter({
            name: 'rate_limit_rejections_total',
            help: 'Requests refused by a rate limit (429): kind "key" (per-key limit) or "auth" (failed authentications per address).',
            labelNames: ['kind'],
            registers,
        });
        for (const kind of ['key', 'auth'])
            this.rateLimitRejections.labels(kind).inc(0);
    }
    observeRequest(method, route, status, seconds) {
        const labels = { method, route, status_code: String(status) };
        this.requests.inc(labels);
        this.duration.observe(labels, seconds);
    }
    observeToolCall(tool, status) {
        const outcome = toolOutcome(status);
        this.toolCalls.inc({ tool, outcome });
        if (outcome === 'error')
            this.toolFailures.inc({ tool });
        if (outcome === 'quota_exceeded')
            this.quotaRejections.inc({ tool });
    }
    observeRateLimited(kind) {
        this.rateLimitRejections.inc({ kind });
    }
};
exports.MetricsService = MetricsService;
exports.MetricsService = MetricsService = __decorate([
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [prom_client_1.Registry])
], MetricsService);
//# sourceMappingURL=metrics.service.js.map