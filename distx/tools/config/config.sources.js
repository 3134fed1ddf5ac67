"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ConfigSourceError = exports.LAYERS = void 0;
exports.readConfigFile = readConfigFile;
exports.readEnvironment = readEnvironment;
exports.sortOverrides = sortOverrides;
const node_fs_1 = require("node:fs");
const yaml_1 = require("yaml");
const config_coercion_1 = require("./config.coercion");
const config_schema_1 = require("./config.schema");
exports.LAYERS = ['default', 'file', 'override', 'env'];
class ConfigSourceError extends Error {
}
exports.ConfigSourceError = ConfigSourceError;
const OPERATOR_SECTIONS = new Set(['limits']);
function isMapping(value) {
    return value !== null && typeof value === 'object' && !Array.isArray(value);
}
function walkFile(node, path, schema, out, fail) {
    for (const [segment, value] of Object.entries(node)) {
        if (path.length === 0 && OPERATOR_SECTIONS.has(segment))
            continue;
        const key = [...path, segment].join('.');
        const entry = (0, config_schema_1.isWellFormedKey)(key) ? schema.key(key) : undefined;
        if (entry) {
            const checked = (0, config_coercion_1.parseTyped)(key, entry.spec, value);
            if (!checked.ok)
                fail(checked.rejection.msg);
            out.set(key, checked.value);
        }
        else if ((0, config_schema_1.isWellFormedKey)(key) && schema.isSection(key)) {
            if (value === null)
                continue;
            if (!isMapping(value))
                fail(`${key} is a section: give it a mapping of its keys`);
            walkFile(value, [...path, segment], schema, out, fail);
        }
        else {
            fail(`unknown configuration key '${key}'`);
        }
    }
}
function readConfigFile(file, schema) {
    const out = new Map();
    if (!file)
        return out;
    const fail = (message) => {
        throw new ConfigSourceError(`Invalid CONFIG_FILE ${file}: ${message}`);
    };
    let doc;
    try {
        doc = (0, yaml_1.parse)((0, node_fs_1.readFileSync)(file, 'utf8'));
    }
    catch (error) {
        fail(error.message);
    }
    if (doc === null || doc === undefined)
        return out;
    if (!isMapping(doc))
        fail('the document must be a mapping');
    walkFile(doc, [], schema, out, fail);
    return out;
}
function readEnvironment(env, schema) {
    const out = new Map();
    for (const [variable, raw] of Object.entries(env)) {
        if (raw === undefined || raw === '')
            continue;
        const entry = schema.keyForEnv(variable);
        if (!entry) {
            if (variable.startsWith(config_schema_1.ENV_PREFIX)) {
                throw new ConfigSourceError(`Invalid environment: ${variable} names no configuration key`);
            }
            continue;
        }
        const earlier = out.get(entry.key);
        if (earlier) {
            throw new ConfigSourceError(`Invalid environment: ${earlier.variable} and ${variable} both set ${entry.key}; set one`);
        }
        const checked = (0, config_coercion_1.parseRaw)(entry.key, entry.spec, raw);
        if (!checked.ok) {
            throw new ConfigSourceError(`Invalid environment: ${variable}: ${checked.rejection.msg}`);
        }
        out.set(entry.key, { value: checked.value, variable });
    }
    return out;
}
function sortOverrides(stored, schema) {
    const valid = new Map();
    const invalid = [];
    for (const [key, value] of Object.entries(stored)) {
        const entry = (0, config_schema_1.isWellFormedKey)(key) ? schema.key(key) : undefined;
        if (!entry) {
            invalid.push({ key, reason: `'${key}' is not a configuration key` });
            continue;
        }
        const checked = (0, config_coercion_1.parseTyped)(key, entry.spec, value);
        if (checked.ok)
            valid.set(key, checked.value);
        else
            invalid.push({ key, reason: checked.rejection.msg });
    }
    return { valid, invalid };
}
//# sourceMappingURL=config.sources.js.map