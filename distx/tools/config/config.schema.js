"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ConfigSection = exports.ConfigSchema = exports.ConfigSchemaError = exports.CORE_SECTIONS = exports.ConfigKey = exports.ENV_PREFIX = exports.MAX_VALUE_LENGTH = exports.MAX_KEY_LENGTH = exports.CONFIG_KEY = exports.KEY_SEGMENT = void 0;
exports.envNameOf = envNameOf;
exports.isWellFormedKey = isWellFormedKey;
const node_net_1 = require("node:net");
const node_path_1 = require("node:path");
const log_control_1 = require("../../logging/log-control");
const config_coercion_1 = require("./config.coercion");
exports.KEY_SEGMENT = /^[a-z][a-z0-9_]*$/;
exports.CONFIG_KEY = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;
exports.MAX_KEY_LENGTH = 200;
exports.MAX_VALUE_LENGTH = 4096;
exports.ENV_PREFIX = 'APP__';
const RESERVED_SEGMENTS = new Set([
    'constructor',
    'prototype',
    'hasownproperty',
    'isprototypeof',
    'propertyisenumerable',
    'tostring',
    'tolocalestring',
    'valueof',
]);
exports.ConfigKey = {
    boolean: (spec) => ({ type: 'boolean', ...spec }),
    integer: (spec) => ({ type: 'integer', ...spec }),
    float: (spec) => ({ type: 'float', ...spec }),
    string: (spec) => ({ type: 'string', ...spec }),
};
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
exports.CORE_SECTIONS = [
    {
        name: 'llm_config',
        description: 'The language-model client used by tools.',
        keys: {
            cache_enabled: exports.ConfigKey.boolean({
                default: true,
                description: 'Cache model answers on disk.',
            }),
            cache_dir: exports.ConfigKey.string({
                default: ({ dataDir }) => (0, node_path_1.join)(dataDir, 'cache'),
                minLength: 1,
                maxLength: 1024,
                description: 'Directory of the answer cache; default <DATA_DIR>/cache.',
            }),
            api_key: exports.ConfigKey.string({
                default: '',
                secret: true,
                maxLength: exports.MAX_VALUE_LENGTH,
                description: 'Credential for the model provider; shown as "********" once set.',
            }),
        },
    },
    {
        name: 'logging',
        description: 'The process logger; both keys apply at once.',
        keys: {
            level: exports.ConfigKey.string({
                default: 'info',
                choices: log_control_1.LOG_LEVELS,
                caseInsensitive: true,
                description: 'Lowest level written: trace, debug, info, warn, error or fatal.',
            }),
            verbose: exports.ConfigKey.boolean({
                default: false,
                description: 'One access line per request.',
            }),
        },
    },
    {
        name: 'server',
        description: 'Where the HTTP server listens; read at start-up.',
        keys: {
            host: exports.ConfigKey.string({
                default: '0.0.0.0',
                restart: true,
                envAlias: 'HOST',
                check: {
                    test: (v) => (0, node_net_1.isIP)(v) !== 0 || HOST_NAME.test(v),
                    expects: 'a host name or IP address',
                },
                description: 'Listening address.',
            }),
            port: exports.ConfigKey.integer({
                default: 8000,
                min: 1,
                max: 65535,
                restart: true,
                envAlias: 'PORT',
                description: 'Listening port.',
            }),
        },
    },
];
class ConfigSchemaError extends Error {
}
exports.ConfigSchemaError = ConfigSchemaError;
function envNameOf(key) {
    return (exports.ENV_PREFIX +
        key
            .split('.')
            .map((s) => s.toUpperCase())
            .join('__'));
}
function isWellFormedKey(key) {
    return (key.length <= exports.MAX_KEY_LENGTH &&
        exports.CONFIG_KEY.test(key) &&
        !key.split('.').some((s) => RESERVED_SEGMENTS.has(s)));
}
class ConfigSchema {
    byKey = new Map();
    sections = new Map();
    byEnvName = new Map();
    constructor(definitions, context) {
        const names = new Set();
        for (const section of definitions) {
            if (!exports.KEY_SEGMENT.test(section.name) || RESERVED_SEGMENTS.has(section.name)) {
                throw new ConfigSchemaError(`Configuration section '${section.name}' must be one segment matching [a-z][a-z0-9_]*`);
            }
            if (names.has(section.name)) {
                throw new ConfigSchemaError(`Two configuration sections are named '${section.name}'`);
            }
            names.add(section.name);
            for (const [relative, spec] of Object.entries(section.keys)) {
                this.add(section.name, `${section.name}.${relative}`, spec, context);
            }
        }
        for (const key of this.byKey.keys()) {
            if (this.sections.has(key)) {
                throw new ConfigSchemaError(`Configuration key '${key}' is also a section`);
            }
        }
    }
    add(section, key, spec, context) {
        if (!isWellFormedKey(key)) {
            throw new ConfigSchemaError(`Configuration key '${key}' must match [a-z][a-z0-9_]* per segment, avoid reserved names and fit in ${exports.MAX_KEY_LENGTH} characters`);
        }
        if (this.byKey.has(key))
            throw new ConfigSchemaError(`Configuration key '${key}' is declared twice`);
        const resolvedDefault = typeof spec.default === 'function' ? spec.default(context) : spec.default;
        const checked = (0, config_coercion_1.parseTyped)(key, spec, resolvedDefault);
        if (!checked.ok) {
            throw new ConfigSchemaError(`Default of '${key}' is invalid: ${checked.rejection.msg}`);
        }
        const entry = {
            key,
            section,
            spec,
            default: checked.value,
            envNames: [envNameOf(key), ...(spec.envAlias ? [spec.envAlias] : [])],
        };
        for (const name of entry.envNames) {
            const other = this.byEnvName.get(name);
            if (other) {
                throw new ConfigSchemaError(`Configuration keys '${other.key}' and '${key}' would both be set by ${name}`);
            }
            this.byEnvName.set(name, entry);
        }
        this.byKey.set(key, entry);
        const segments = key.split('.');
        for (let i = 1; i < segments.length; i++) {
            const prefix = segments.slice(0, i).join('.');
            const below = this.sections.get(prefix) ?? [];
            below.push(key);
            this.sections.set(prefix, below);
        }
    }
    key(key) {
        return this.byKey.get(key);
    }
    isSection(key) {
        return this.sections.has(key);
    }
    keysUnder(section) {
        const keys = section === undefined ? [...this.byKey.keys()] : (this.sections.get(section) ?? []);
        return keys.map((k) => this.byKey.get(k));
    }
    keys() {
        return [...this.byKey.values()];
    }
    keyForEnv(name) {
        return this.byEnvName.get(name);
    }
}
exports.ConfigSchema = ConfigSchema;
class ConfigSection {
    definition;
    constructor(definition) {
        this.definition = definition;
    }
}
exports.ConfigSection = ConfigSection;
//# sourceMappingURL=config.schema.js.map