"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.RedisStore = void 0;
const node_crypto_1 = require("node:crypto");
const redis_connection_1 = require("./redis.connection");
const store_1 = require("./store");
const SCRIPTS = {
    tisInsertKey: {
        numberOfKeys: 2,
        lua: `
      if ARGV[1] == '1' and redis.call('HLEN', KEYS[1]) > 0 then return 0 end
      if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then
        return redis.error_reply('ERR an API key with this id or hash already exists')
      end
      redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
      redis.call('HSET', KEYS[2], unpack(ARGV, 4))
      return 1`,
    },
    tisRevokeKey: {
        numberOfKeys: 1,
        lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
      redis.call('HSETNX', KEYS[1], 'revoked_at', ARGV[1])
      return 1`,
    },
    tisTouchKey: {
        numberOfKeys: 1,
        lua: `
      if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'last_used_at', ARGV[1]) end
      return 0`,
    },
    tisWriteOverride: {
        numberOfKeys: 1,
        lua: `
      if ARGV[4] then redis.call('HSET', KEYS[1], ARGV[3], ARGV[4]) else redis.call('HDEL', KEYS[1], ARGV[3]) end
      redis.call('PUBLISH', ARGV[1], ARGV[2])
      return 1`,
    },
    tisConsumeQuota: {
        numberOfKeys: 1,
        lua: `
      local used = tonumber(redis.call('GET', KEYS[1]) or '0')
      local limit = tonumber(ARGV[1])
      if limit >= 0 and used >= limit then return {0, used} end
      used = redis.call('INCR', KEYS[1])
      if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
      return {1, used}`,
    },
};
const QUOTA_KEEP_SECONDS = 2 * 86_400;
const KEY_FIELDS = [
    'id',
    'name',
    'prefix',
    'hash',
    'scopes',
    'plan',
    'daily_limit',
    'rate_limit',
    'created_at',
    'expires_at',
    'revoked_at',
    'last_used_at',
];
const REQUIRED_KEY_FIELDS = ['id', 'name', 'prefix', 'hash', 'scopes', 'plan', 'created_at'];
function encodeKey(key) {
    const pairs = [];
    for (const field of KEY_FIELDS) {
        const value = key[field];
        if (value === null)
            continue;
        pairs.push(field, field === 'scopes' ? JSON.stringify(value) : String(value));
    }
    return pairs;
}
function decodeKey(fields) {
    if (!fields.id)
        return undefined;
    const text = (name) => fields[name] ?? null;
    const int = (name) => (fields[name] === undefined ? null : Number(fields[name]));
    return {
        id: fields.id,
        name: fields.name,
        prefix: fields.prefix,
        hash: fields.hash,
        scopes: JSON.parse(fields.scopes),
        plan: fields.plan,
        daily_limit: int('daily_limit'),
        rate_limit: int('rate_limit'),
        created_at: fields.created_at,
        expires_at: text('expires_at'),
        revoked_at: text('revoked_at'),
        last_used_at: text('last_used_at'),
    };
}
function parseInfo(info) {
    const entries = info
        .split(/\r?\n/)
        .filter((line) => line && !line.startsWith('#'))
        .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]);
    return Object.fromEntries(entries);
}
class RedisStore extends store_1.Store {
    subscriber;
    settings;
    static INDEX = 'keys:by-hash';
    static OVERRIDES = 'config:overrides';
    kind = 'redis';
    origin = (0, node_crypto_1.randomUUID)();
    channel;
    client;
    constructor(client, subscriber, settings) {
        super();
        this.subscriber = subscriber;
        this.settings = settings;
        for (const [name, script] of Object.entries(SCRIPTS)) {
            client.defineCommand(name, script);
        }
        this.client = client;
        this.channel = `${settings.redisKeyPrefix}config:overrides`;
    }
    static async open(client, settings) {
        const subscriber = (0, redis_connection_1.createRedisClient)(settings, 'subscriber');
        const store = new RedisStore(client, subscriber, settings);
        try {
            await Promise.all([(0, redis_connection_1.connectRedis)(client), (0, redis_connection_1.connectRedis)(subscriber)]);
            await store.subscribe();
            return store;
        }
        catch (error) {
            await store.close();
            throw error;
        }
    }
    async subscribe() {
        this.subscriber.on('message', (channel, origin) => {
            if (channel === this.channel && origin !== this.origin)
                this.notifyOverridesChanged();
        });
        await (0, redis_connection_1.redisCall)(this.subscriber.subscribe(this.channel));
        this.subscriber.on('ready', () => {
            if (this.client.status === 'ready')
                this.notifyOverridesChanged();
            else
                this.client.once('ready', () => this.notifyOverridesChanged());
        });
    }
    describe() {
        return `${(0, redis_connection_1.redactRedisUrl)(this.settings.redisUrl ?? '')} (key prefix '${this.settings.redisKeyPrefix}')`;
    }
    recordKey(id) {
        return `key:${id}`;
    }
    async insert(key, onlyIfEmpty) {
        const inserted = await (0, redis_connection_1.redisCall)(this.client.tisInsertKey(RedisStore.INDEX, this.recordKey(key.id), onlyIfEmpty ? '1' : '0', key.hash, key.id, ...encodeKey(key)));
        return inserted === 1;
    }
    async insertKey(key) {
        await this.insert(key, false);
    }
    insertKeyIfNone(key) {
        return this.insert(key, true);
    }
    async findKeyByHash(hash) {
        const id = await (0, redis_connection_1.redisCall)(this.client.hget(RedisStore.INDEX, hash));
        return id === null ? undefined : this.findKeyById(id);
    }
    async findKeyById(id) {
        return decodeKey(await (0, redis_connection_1.redisCall)(this.client.hgetall(this.recordKey(id))));
    }
    async listKeys() {
        const ids = await (0, redis_connection_1.redisCall)(this.client.hvals(RedisStore.INDEX));
        const records = await Promise.all(ids.map((id) => this.findKeyById(id)));
        return records
            .filter((r) => r !== undefined)
            .sort((a, b) => a.created_at === b.created_at
            ? a.id.localeCompare(b.id)
            : a.created_at.localeCompare(b.created_at));
    }
    async revokeKey(id, at) {
        return (await (0, redis_connection_1.redisCall)(this.client.tisRevokeKey(this.recordKey(id), at))) === 1;
    }
    async touchKey(id, at) {
        await (0, redis_connection_1.redisCall)(this.client.tisTouchKey(this.recordKey(id), at));
    }
    async getOverrides() {
        const stored = await (0, redis_connection_1.redisCall)(this.client.hgetall(RedisStore.OVERRIDES));
        return Object.fromEntries(Object.entries(stored).map(([key, value]) => [key, JSON.parse(value)]));
    }
    async setOverride(key, value) {
        await this.writeOverride(key, JSON.stringify(value));
    }
    async deleteOverride(key) {
        await this.writeOverride(key);
    }
    async writeOverride(key, json) {
        const args = [this.channel, this.origin, key, ...(json === undefined ? [] : [json])];
        await (0, redis_connection_1.redisCall)(this.client.tisWriteOverride(RedisStore.OVERRIDES, ...args));
        this.notifyOverridesChanged();
    }
    async consumeQuota(keyId, day, limit) {
        const [counted, used] = await (0, redis_connection_1.redisCall)(this.client.tisConsumeQuota(`quota:${keyId}:${day}`, String(limit ?? -1), String(QUOTA_KEEP_SECONDS)));
        return { allowed: counted === 1, used };
    }
    async getUsage(keyId, day) {
        return Number((await (0, redis_connection_1.redisCall)(this.client.get(`quota:${keyId}:${day}`))) ?? 0);
    }
    async ping() {
        await (0, redis_connection_1.redisCall)(this.client.ping());
        if (this.subscriber.status !== 'ready') {
            throw new store_1.StoreUnavailableError('Redis cannot be reached: the subscriber connection is down');
        }
    }
    async checkIntegrity() {
        const problems = await this.checkKeyIndex();
        const info = parseInfo((await (0, redis_connection_1.redisCall)(this.client.info('persistence'))) +
            (await (0, redis_connection_1.redisCall)(this.client.info('memory'))));
        if (info.aof_enabled !== '1') {
            problems.push('Redis runs without AOF (appendonly no): keys and counts since the last snapshot are lost if Redis stops');
        }
        else if (info.aof_last_write_status && info.aof_last_write_status !== 'ok') {
            problems.push(`Redis cannot write its AOF file (aof_last_write_status: ${info.aof_last_write_status})`);
        }
        if (info.rdb_last_bgsave_status && info.rdb_last_bgsave_status !== 'ok') {
            problems.push('The last Redis snapshot (BGSAVE) failed');
        }
        const policy = info.maxmemory_policy;
        if (info.maxmemory && info.maxmemory !== '0' && policy && policy !== 'noeviction') {
            problems.push(`Redis may evict keys under memory pressure (maxmemory-policy ${policy}): API keys or quota counters could vanish; use noeviction`);
        }
        return problems;
    }
    async checkKeyIndex() {
        const index = Object.entries(await (0, redis_connection_1.redisCall)(this.client.hgetall(RedisStore.INDEX)));
        const records = await Promise.all(index.map(([, id]) => (0, redis_connection_1.redisCall)(this.client.hgetall(this.recordKey(id)))));
        return index.flatMap(([hash, id], i) => {
            const fields = records[i];
            if (!fields.id)
                return [`The key index names ${id}, which has no record`];
            if (fields.hash !== hash)
                return [`Key ${id}: its record and the index disagree on its hash`];
            const missing = REQUIRED_KEY_FIELDS.filter((f) => !fields[f]);
            return missing.length ? [`Key ${id}: its record lacks ${missing.join(', ')}`] : [];
        });
    }
    async close() {
        await Promise.all([(0, redis_connection_1.closeRedis)(this.client), (0, redis_connection_1.closeRedis)(this.subscriber)]);
    }
}
exports.RedisStore = RedisStore;
//# sourceMappingURL=redis.store.js.map