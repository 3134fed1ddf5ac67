"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.API_KEY_PATTERN = void 0;
exports.generateApiKey = generateApiKey;
exports.generateKeyId = generateKeyId;
exports.hashApiKey = hashApiKey;
exports.displayPrefix = displayPrefix;
exports.hashesEqual = hashesEqual;
exports.bearerToken = bearerToken;
const node_crypto_1 = require("node:crypto");
exports.API_KEY_PATTERN = /^sk_[0-9a-f]{64}$/;
function generateApiKey() {
    return `sk_${(0, node_crypto_1.randomBytes)(32).toString('hex')}`;
}
function generateKeyId() {
    return `key_${(0, node_crypto_1.randomBytes)(8).toString('hex')}`;
}
function hashApiKey(key) {
    return (0, node_crypto_1.createHash)('sha256').update(key, 'utf8').digest('hex');
}
function displayPrefix(key) {
    return key.slice(0, 11);
}
function hashesEqual(a, b) {
    return a.length === b.length && (0, node_crypto_1.timingSafeEqual)(Buffer.from(a), Buffer.from(b));
}
function bearerToken(header) {
    if (typeof header !== 'string')
        return undefined;
    const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
}
//# sourceMappingURL=api-key.js.map