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
var __param = (this && this.__param) || function (paramIndex, decorator) {
    return function (target, key) { decorator(target, key, paramIndex); }
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.ConfigService = exports.REDACTED = void 0;
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const api_error_1 = require("../../errors/api-error");
const log_control_1 = require("../../logging/log-control");
const settings_1 = require("../../settings/settings");
const store_1 = require("../../store/store");
const config_coercion_1 = require("./config.coercion");
const config_schema_1 = require("./config.schema");
const config_sources_1 = require("./config.sources");
exports.REDACTED = '********';
let ConfigService = class ConfigService {
    discovery;
    store;
    logControl;
    env;
    settings;
    logger = new common_1.Logger('Config');
    loading;
    loaded;
    unsubscribe;
    applying;
    applyAgain = false;
    constructor(discovery, store, logControl, env, settings) {
        this.discovery = discovery;
        this.store = store;
        this.logControl = logControl;
        this.env = env;
        this.settings = settings;
    }
    async onModuleInit() {
        await this.ready();
        this.unsubscribe = this.store.onOverridesChanged(() => void this.applyLive());
        await this.applyLive();
    }
    onModuleDestroy() {
        this.unsubscribe?.();
    }
    ready() {
        this.loading ??= this.load();
        return this.loading;
    }
    async load() {
        const schema = new config_schema_1.ConfigSchema([...config_schema_1.CORE_SECTIONS, ...this.contributedSections()], {
            dataDir: this.settings.dataDir,
        });
        const file = (0, config_sources_1.readConfigFile)(this.settings.configFile, schema);
        const env = (0, config_sources_1.readEnvironment)(this.env, schema);
        const partial = { schema, file, env, startup: new Map() };
        const snapshot = await this.read(partial);
        for (const { key, reason } of snapshot.invalidOverrides) {
            this.logger.warn(`Ignoring the stored override of '${key}': ${reason}`);
        }
        const startup = new Map(schema
            .keys()
            .filter((k) => k.spec.restart)
            .map((k) => [k.key, snapshot.values.get(k.key).value]));
        this.loaded = { ...partial, startup };
        return this.loaded;
    }
    contributedSections() {
        const found = new Set();
        for (const wrapper of this.discovery.getProviders()) {
            if (wrapper.instance instanceof config_schema_1.ConfigSection)
                found.add(wrapper.instance);
        }
        return [...found].map((section) => section.definition);
    }
    get state() {
        if (!this.loaded)
            throw new Error('The configuration is read before the application started');
        return this.loaded;
    }
    get schema() {
        return this.state.schema;
    }
    envPins() {
        return new Map([...this.state.env].map(([key, pin]) => [key, pin.variable]));
    }
    startupValues() {
        return this.state.startup;
    }
    listenAddress() {
        const startup = this.state.startup;
        return {
            host: startup.get('server.host'),
            port: startup.get('server.port'),
        };
    }
    async snapshot() {
        return this.read(await this.ready());
    }
    async read({ schema, file, env }) {
        const { valid, invalid } = (0, config_sources_1.sortOverrides)(await this.store.getOverrides(), schema);
        const values = new Map();
        for (const entry of schema.keys()) {
            values.set(entry.key, resolve(entry, file, valid, env));
        }
        return { values, overrides: valid, invalidOverrides: invalid };
    }
    async tree(options = {}) {
        const snapshot = await this.snapshot();
        this.logger.debug('Read the configuration tree');
        return buildTree(this.state.schema.keys(), snapshot, '', options.redact ?? false);
    }
    async get(key, options = {}) {
        const { schema } = await this.ready();
        const entry = this.known(schema, key);
        const snapshot = await this.snapshot();
        const redact = options.redact ?? false;
        if (!entry) {
            this.logger.debug(`Read configuration section ${key}`);
            return buildTree(schema.keysUnder(key), snapshot, key, redact);
        }
        const resolved = snapshot.values.get(key);
        this.logger.debug(`Read configuration key ${key} from the ${resolved.layer} layer`);
        return redact ? redactValue(entry, resolved.value) : resolved.value;
    }
    async resolve(key) {
        const { schema } = await this.ready();
        const entry = this.leaf(schema, key);
        const resolved = (await this.snapshot()).values.get(key);
        return { ...resolved, entry };
    }
    async set(key, raw) {
        const { schema, env } = await this.ready();
        const entry = this.leaf(schema, key);
        const pin = env.get(key);
        if (pin) {
            throw new api_error_1.ApiError(409, `Configuration key '${key}' is pinned by the environment variable ${pin.variable}; change ${pin.variable} and restart instead`);
        }
        const checked = (0, config_coercion_1.parseRaw)(key, entry.spec, raw);
        if (!checked.ok) {
            const { msg, type } = checked.rejection;
            throw new api_error_1.ValidationFailed([{ loc: ['body', 'value'], msg, type }]);
        }
        await this.store.setOverride(key, checked.value);
        this.logger.log(`Configuration override stored for ${key}${entry.spec.restart ? ' (applies after a restart)' : ''}`);
        await this.applyLive();
        return checked.value;
    }
    redact(key, value) {
        const entry = this.state.schema.key(key);
        return entry ? redactValue(entry, value) : value;
    }
    async invalidOverrides() {
        return (await this.snapshot()).invalidOverrides;
    }
    async removeOverride(key) {
        await this.store.deleteOverride(key);
        await this.applyLive();
    }
    async pendingRestart() {
        const snapshot = await this.snapshot();
        return [...this.state.startup].flatMap(([key, running]) => {
            const configured = snapshot.values.get(key).value;
            return configured === running ? [] : [{ key, running, configured }];
        });
    }
    known(schema, key) {
        if (!(0, config_schema_1.isWellFormedKey)(key))
            throw notFound(key);
        const entry = schema.key(key);
        if (entry)
            return entry;
        if (schema.isSection(key))
            return undefined;
        throw notFound(key);
    }
    leaf(schema, key) {
        const entry = this.known(schema, key);
        if (entry)
            return entry;
        const keys = schema.keysUnder(key).map((k) => k.key);
        throw new api_error_1.ValidationFailed([
            {
                loc: ['body', 'key'],
                msg: `${key} is a section, not a value: set one of its keys (${keys.join(', ')})`,
                type: 'value_error',
            },
        ]);
    }
    applyLive() {
        this.applyAgain = true;
        this.applying ??= this.drainLive();
        return this.applying;
    }
    async drainLive() {
        try {
            while (this.applyAgain) {
                this.applyAgain = false;
                try {
                    await this.applyLogging();
                }
                catch (error) {
                    this.logger.warn({ err: error }, 'Could not apply the logging configuration');
                }
            }
        }
        finally {
            this.applying = undefined;
        }
    }
    async applyLogging() {
        const { values } = await this.snapshot();
        const level = values.get('logging.level').value;
        const verbose = values.get('logging.verbose').value;
        if (this.logControl.level !== level) {
            this.logControl.setLevel(level);
            this.logger.log(`Log level is now ${level}`);
        }
        if (this.logControl.verbose !== verbose) {
            this.logControl.setVerbose(verbose);
            this.logger.log(`Access log is now ${verbose ? 'on' : 'off'}`);
        }
    }
};
exports.ConfigService = ConfigService;
exports.ConfigService = ConfigService = __decorate([
    (0, common_1.Injectable)(),
    __param(3, (0, common_1.Inject)(settings_1.ENVIRONMENT)),
    __param(4, (0, common_1.Inject)(settings_1.SETTINGS)),
    __metadata("design:paramtypes", [core_1.DiscoveryService,
        store_1.Store,
        log_control_1.LogControl, Object, Object])
], ConfigService);
function notFound(key) {
    return new api_error_1.ApiError(404, `Configuration key '${key}' not found`);
}
function resolve(entry, file, overrides, env) {
    const pin = env.get(entry.key);
    if (pin)
        return { value: pin.value, layer: 'env', variable: pin.variable };
    const override = overrides.get(entry.key);
    if (override !== undefined)
        return { value: override, layer: 'override' };
    const fromFile = file.get(entry.key);
    if (fromFile !== undefined)
        return { value: fromFile, layer: 'file' };
    return { value: entry.default, layer: 'default' };
}
function redactValue(entry, value) {
    return entry.spec.secret && value !== '' ? exports.REDACTED : value;
}
function buildTree(keys, snapshot, prefix, redact) {
    const root = Object.create(null);
    const skip = prefix ? prefix.split('.').length : 0;
    for (const entry of keys) {
        const segments = entry.key.split('.').slice(skip);
        const last = segments.pop();
        let node = root;
        for (const segment of segments) {
            if (!Object.hasOwn(node, segment))
                node[segment] = Object.create(null);
            node = node[segment];
        }
        const value = snapshot.values.get(entry.key).value;
        node[last] = redact ? redactValue(entry, value) : value;
    }
    return root;
}
//# sourceMappingURL=config.service.js.map