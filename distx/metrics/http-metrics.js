"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.routeLabel = routeLabel;
exports.httpMetricsMiddleware = httpMetricsMiddleware;
const routes_1 = require("../errors/routes");
const tool_decorator_1 = require("../tools/tool.decorator");
const TOOL_ROUTE = `/${tool_decorator_1.TOOLS_PATH}/`;
function routeLabel(req, app) {
    const route = req.route;
    if (typeof route?.path === 'string' && !route.path.includes('*'))
        return route.path;
    const path = req.originalUrl.split('?')[0];
    const template = (0, routes_1.routeTemplateFor)(app, path);
    if (template)
        return template;
    if (req.baseUrl)
        return `${req.baseUrl}/*`;
    return 'unmatched';
}
function httpMetricsMiddleware(metrics, tools, app) {
    return (req, res, next) => {
        const started = process.hrtime.bigint();
        res.once('finish', () => {
            const seconds = Number(process.hrtime.bigint() - started) / 1e9;
            const route = routeLabel(req, app);
            const status = res.statusCode;
            metrics.observeRequest(req.method, route, status, seconds);
            if (status === 429)
                metrics.observeRateLimited(req.apiKey ? 'key' : 'auth');
            const tool = req.method === 'POST' && route.startsWith(TOOL_ROUTE)
                ? route.slice(TOOL_ROUTE.length)
                : undefined;
            if (tool !== undefined && tools.get(tool))
                metrics.observeToolCall(tool, status);
        });
        next();
    };
}
//# sourceMappingURL=http-metrics.js.map