"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SCOPE_TEMPLATES = exports.KNOWN_SCOPES = void 0;
exports.isValidScope = isValidScope;
exports.scopeCovers = scopeCovers;
exports.hasScope = hasScope;
exports.hasAnyScope = hasAnyScope;
exports.KNOWN_SCOPES = [
    'services:read',
    'services:execute',
    'admin:read',
    'admin:write',
];
exports.SCOPE_TEMPLATES = {
    read_only: ['services:read'],
    standard: ['services:read', 'services:execute'],
    admin: ['*'],
};
const RESOURCES = new Set(exports.KNOWN_SCOPES.map((s) => s.split(':')[0]));
function isValidScope(scope) {
    if (scope === '*' || exports.KNOWN_SCOPES.includes(scope))
        return true;
    const [resource, action] = scope.split(':');
    return action === '*' && RESOURCES.has(resource) && scope.split(':').length === 2;
}
function scopeCovers(held, wanted) {
    if (held === '*' || held === wanted)
        return true;
    if (wanted === '*')
        return false;
    if (held.endsWith(':*'))
        return wanted.startsWith(held.slice(0, -1));
    return false;
}
function hasScope(held, wanted) {
    return held.some((h) => scopeCovers(h, wanted));
}
function hasAnyScope(held, wanted) {
    return wanted.length === 0 || wanted.some((w) => hasScope(held, w));
}
//# sourceMappingURL=scopes.js.map