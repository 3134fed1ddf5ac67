"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SettingsError = exports.DEFAULT_PLANS = exports.SETTINGS = exports.ENVIRONMENT = void 0;
exports.originOf = originOf;
exports.loadSettings = loadSettings;
const node_fs_1 = require("node:fs");
const node_path_1 = require("node:path");
const yaml_1 = require("yaml");
exports.ENVIRONMENT = Symbol('ENVIRONMENT');
exports.SETTINGS = Symbol('SETTINGS');
exports.DEFAULT_PLANS = {
    free: { daily_limit: 100, rate_limit: 5 },
    pro: { daily_limit: 10_000, rate_limit: 50 },
    unlimited: { daily_limit: null, rate_limit: 1_000 },
};
class SettingsError extends Error {
}
exports.SettingsError = SettingsError;
function intFrom(env, name, fallback, min = 0) {
    const raw = env[name];
    if (raw === undefined || raw === '')
        return fallback;
    if (!/^\d+$/.test(raw.trim()) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) {
        throw new SettingsError(`Invalid environment: ${name} must be a whole number >= ${min}, got '${raw}'`);
    }
    return Number(raw);
}
function parseOrigins(raw) {
    const entries = (raw ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean);
    return entries.map((entry) => {
        const origin = entry === '*' ? entry : originOf(entry);
        if (origin === undefined) {
            throw new SettingsError(`Invalid environment: MCP_ALLOWED_ORIGINS entries must be origins like https://app.example.com, or *; got '${entry}'`);
        }
        return origin;
    });
}
function originOf(value) {
    let url;
    try {
        url = new URL(value);
    }
    catch {
        return undefined;
    }
    const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
    return bare && url.origin !== 'null' ? url.origin : undefined;
}
function parseTrustProxy(raw) {
    if (raw === undefined || raw === '' || raw === 'false')
        return false;
    if (raw === 'true')
        return true;
    if (/^\d+$/.test(raw))
        return Number(raw);
    return raw;
}
function limitsFromFile(configFile) {
    if (!configFile)
        return {};
    let doc;
    try {
        doc = (0, yaml_1.parse)((0, node_fs_1.readFileSync)(configFile, 'utf8'));
    }
    catch (error) {
        throw new SettingsError(`Cannot read CONFIG_FILE ${configFile}: ${error.message}`);
    }
    if (doc && typeof doc === 'object' && 'limits' in doc) {
        const limits = doc.limits;
        if (limits && typeof limits === 'object')
            return limits;
        throw new SettingsError(`Invalid CONFIG_FILE ${configFile}: 'limits' must be a mapping`);
    }
    return {};
}
function checkLimit(where, value, nullable) {
    if (value === null && nullable)
        return null;
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)
        return value;
    throw new SettingsError(`Invalid ${where}: expected a whole number >= 0${nullable ? ' or null' : ''}`);
}
function resolvePlans(env, fileLimits) {
    const plans = structuredClone(exports.DEFAULT_PLANS);
    const filePlans = fileLimits.plans;
    if (filePlans !== undefined) {
        if (!filePlans || typeof filePlans !== 'object') {
            throw new SettingsError("Invalid CONFIG_FILE: 'limits.plans' must be a mapping");
        }
        for (const [name, value] of Object.entries(filePlans)) {
            if (!/^[a-z][a-z0-9_]*$/.test(name) || !value || typeof value !== 'object') {
                throw new SettingsError(`Invalid CONFIG_FILE: limits.plans.${name} must be a mapping`);
            }
            const plan = value;
            const base = plans[name] ?? { daily_limit: null, rate_limit: 1 };
            plans[name] = {
                daily_limit: 'daily_limit' in plan
                    ? checkLimit(`limits.plans.${name}.daily_limit`, plan.daily_limit, true)
                    : base.daily_limit,
                rate_limit: 'rate_limit' in plan
                    ? checkLimit(`limits.plans.${name}.rate_limit`, plan.rate_limit, false)
                    : base.rate_limit,
            };
        }
    }
    for (const name of Object.keys(plans)) {
        const upper = name.toUpperCase();
        const daily = env[`PLAN_${upper}_DAILY_LIMIT`];
        if (daily !== undefined && daily !== '') {
            plans[name].daily_limit =
                daily === 'none' ? null : intFrom(env, `PLAN_${upper}_DAILY_LIMIT`, 0);
        }
        plans[name].rate_limit = intFrom(env, `PLAN_${upper}_RATE_LIMIT`, plans[name].rate_limit, 1);
    }
    return plans;
}
function loadSettings(env) {
    const configFile = env.CONFIG_FILE ? (0, node_path_1.resolve)(env.CONFIG_FILE) : undefined;
    const fileLimits = limitsFromFile(configFile);
    const plans = resolvePlans(env, fileLimits);
    const defaultPlan = env.DEFAULT_PLAN || 'free';
    if (!plans[defaultPlan])
        throw new SettingsError(`Invalid environment: DEFAULT_PLAN '${defaultPlan}' is not a plan`);
    const fileAuthLimit = fileLimits.auth_failures_per_minute;
    const authFailureLimit = intFrom(env, 'AUTH_FAILURE_LIMIT', fileAuthLimit === undefined
        ? 100
        : checkLimit('limits.auth_failures_per_minute', fileAuthLimit, false), 1);
    const redisUrl = env.REDIS_URL || undefined;
    if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) {
        throw new SettingsError(`Invalid environment: REDIS_URL must start with redis:// or rediss://`);
    }
    const redisKeyPrefix = env.REDIS_KEY_PREFIX ?? 'tis:';
    if (!/^[A-Za-z0-9:_.{}-]{1,64}$/.test(redisKeyPrefix)) {
        throw new SettingsError(`Invalid environment: REDIS_KEY_PREFIX must be 1 to 64 of letters, digits and ':_.{}-', got '${redisKeyPrefix}'`);
    }
    return {
        dataDir: (0, node_path_1.resolve)(env.DATA_DIR || './data'),
        configFile,
        redisUrl,
        redisKeyPrefix,
        trustProxy: parseTrustProxy(env.TRUST_PROXY),
        plans,
        defaultPlan,
        initialKeyPlan: 'unlimited',
        authFailureLimit,
        authFailureWindowSeconds: intFrom(env, 'AUTH_FAILURE_WINDOW_SECONDS', 60, 1),
        rateLimitWindowMs: intFrom(env, 'RATE_LIMIT_WINDOW_MS', 1000, 100),
        doctor: {
            checkTimeoutMs: intFrom(env, 'DOCTOR_CHECK_TIMEOUT_MS', 5000, 10),
            diskWarnMb: intFrom(env, 'DOCTOR_DISK_WARN_MB', 1024),
            diskFailMb: intFrom(env, 'DOCTOR_DISK_FAIL_MB', 100),
        },
        bodyLimitBytes: intFrom(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024),
        mcpAllowedOrigins: parseOrigins(env.MCP_ALLOWED_ORIGINS),
        version: packageVersion(),
    };
}
function packageVersion() {
    try {
        const pkg = JSON.parse((0, node_fs_1.readFileSync)((0, node_path_1.resolve)(__dirname, '../../package.json'), 'utf8'));
        return pkg.version ?? '0.0.0';
    }
    catch {
        return '0.0.0';
    }
}
//# sourceMappingURL=settings.js.map