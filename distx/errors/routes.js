"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.allowedMethods = allowedMethods;
exports.routeTemplateFor = routeTemplateFor;
function allowedMethods(app, path) {
    const methods = new Set();
    for (const layer of app.router?.stack ?? []) {
        if (!layer.route || layer.route.path.includes('*') || !layer.match(path))
            continue;
        for (const [method, on] of Object.entries(layer.route.methods)) {
            if (on && method !== '_all')
                methods.add(method.toUpperCase());
        }
    }
    if (methods.has('GET'))
        methods.add('HEAD');
    return [...methods].sort();
}
function routeTemplateFor(app, path) {
    for (const layer of app.router?.stack ?? []) {
        if (layer.route && !layer.route.path.includes('*') && layer.match(path))
            return layer.route.path;
    }
    return undefined;
}
//# sourceMappingURL=routes.js.map