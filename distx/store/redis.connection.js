"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.REDIS_CLIENT = void 0;
exports.redisOptions = redisOptions;
exports.redactRedisUrl = redactRedisUrl;
exports.createRedisClient = createRedisClient;
exports.connectRedis = connectRedis;
exports.closeRedis = closeRedis;
exports.asStoreError = asStoreError;
exports.redisCall = redisCall;
const common_1 = require("@nestjs/common");
const ioredis_1 = __importStar(require("ioredis"));
const store_1 = require("./store");
exports.REDIS_CLIENT = Symbol('REDIS_CLIENT');
const CONNECT_TIMEOUT_MS = 3_000;
const COMMAND_TIMEOUT_MS = 3_000;
const MAX_RECONNECT_DELAY_MS = 1_000;
const STARTUP_WAIT_MS = 10_000;
const DISCONNECT_TIMEOUT_MS = 200;
const UNAVAILABLE_REPLY = /^(LOADING|MISCONF|READONLY|OOM|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN|NOAUTH|WRONGPASS|NOPERM)\b/;
function redisOptions(settings) {
    return {
        keyPrefix: settings.redisKeyPrefix,
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: CONNECT_TIMEOUT_MS,
        commandTimeout: COMMAND_TIMEOUT_MS,
        disconnectTimeout: DISCONNECT_TIMEOUT_MS,
        retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, MAX_RECONNECT_DELAY_MS),
    };
}
function redactRedisUrl(url) {
    try {
        const parsed = new URL(url);
        if (parsed.password)
            parsed.password = '****';
        return parsed.toString();
    }
    catch {
        return 'redis://(unparseable URL)';
    }
}
function createRedisClient(settings, role) {
    const url = settings.redisUrl;
    if (!url)
        throw new Error('createRedisClient needs REDIS_URL');
    const client = new ioredis_1.default(url, { ...redisOptions(settings), connectionName: `tis-${role}` });
    const logger = new common_1.Logger(`Redis:${role}`);
    const where = redactRedisUrl(url);
    let up = false;
    let lastFailure;
    client.on('reconnecting', () => {
        if (up)
            logger.warn(`Redis at ${where}: connection lost; reconnecting`);
        up = false;
    });
    client.on('error', (error) => {
        if (error.message === lastFailure)
            return;
        lastFailure = error.message;
        logger.warn(`Redis at ${where}: ${error.message}`);
    });
    client.on('ready', () => {
        if (lastFailure !== undefined)
            logger.log(`Redis at ${where} is reachable again`);
        up = true;
        lastFailure = undefined;
    });
    return client;
}
async function connectRedis(client, timeoutMs = STARTUP_WAIT_MS) {
    if (client.status === 'ready')
        return;
    if (client.status === 'wait')
        client.connect().catch(() => undefined);
    let onReady = () => undefined;
    let timer;
    try {
        await new Promise((resolve, reject) => {
            onReady = resolve;
            client.once('ready', onReady);
            timer = setTimeout(() => reject(new store_1.StoreUnavailableError(`Redis did not become reachable within ${timeoutMs / 1000} seconds`)), timeoutMs);
        });
    }
    finally {
        clearTimeout(timer);
        client.off('ready', onReady);
    }
}
async function closeRedis(client) {
    if (client.status === 'end')
        return;
    if (client.status === 'ready') {
        try {
            await client.quit();
            return;
        }
        catch {
        }
    }
    client.disconnect(false);
}
function asStoreError(error) {
    if (error instanceof store_1.StoreUnavailableError)
        return error;
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof ioredis_1.ReplyError && !UNAVAILABLE_REPLY.test(message))
        return error;
    return new store_1.StoreUnavailableError(`Redis cannot be reached: ${message}`, { cause: error });
}
async function redisCall(call) {
    try {
        return await call;
    }
    catch (error) {
        throw asStoreError(error);
    }
}
//# sourceMappingURL=redis.connection.js.map