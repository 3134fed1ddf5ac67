import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Settings } from '../settings/settings';
import {
  closeRedis,
  connectRedis,
  createRedisClient,
  redactRedisUrl,
  redisCall,
} from './redis.connection';
import { USAGE_KEEP_DAYS } from './sqlite.store';
import {
  ApiKeyRecord,
  AuditEntry,
  IdempotencyBegin,
  IdempotencyClaim,
  KeyChanges,
  KeyPosition,
  KeyRotation,
  NewKeyRecord,
  QuotaResult,
  Store,
  StoreUnavailableError,
} from './store';

/**
 * Lua scripts: each runs atomically on the Redis server, so several instances never interleave
 * inside one of them. KEYS are prefixed by the client's keyPrefix; ARGV are not.
 */
const SCRIPTS = {
  /** KEYS: hash->id index, the key's record. ARGV: only-if-empty flag, hash, id, field/value pairs. */
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
  /** KEYS: the key's record. ARGV: time. The first revocation time is kept. */
  tisRevokeKey: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
      redis.call('HSETNX', KEYS[1], 'revoked_at', ARGV[1])
      return 1`,
  },
  /** KEYS: the key's record. ARGV: time. Never creates a record for an unknown id. */
  tisTouchKey: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'last_used_at', ARGV[1]) end
      return 0`,
  },
  /** KEYS: overrides hash. ARGV: channel, origin, field, JSON value (absent: delete). Write and announce as one. */
  tisWriteOverride: {
    numberOfKeys: 1,
    lua: `
      if ARGV[4] then redis.call('HSET', KEYS[1], ARGV[3], ARGV[4]) else redis.call('HDEL', KEYS[1], ARGV[3]) end
      redis.call('PUBLISH', ARGV[1], ARGV[2])
      return 1`,
  },
  /**
   * KEYS: the day's counter. ARGV: limit (-1: none), seconds to keep the counter.
   * Increments only while below the limit; returns {counted 1|0, used}.
   */
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
  /**
   * KEYS: the key's record. ARGV: field/value pairs to set, then '--', then fields to delete.
   * Never creates a record for an unknown id.
   */
  tisUpdateKey: {
    numberOfKeys: 1,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
      local i = 1
      while ARGV[i] ~= '--' do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]); i = i + 2 end
      i = i + 1
      while ARGV[i] do redis.call('HDEL', KEYS[1], ARGV[i]); i = i + 1 end
      return 1`,
  },
  /**
   * KEYS: hash->id index, the key's record. ARGV: id, new hash, new prefix, previous hash to keep
   * ('' for none), its expiry. Hashes no longer accepted leave the index.
   */
  tisRotateKey: {
    numberOfKeys: 2,
    lua: `
      if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
      local current = redis.call('HGET', KEYS[2], 'hash')
      local older = redis.call('HGET', KEYS[2], 'previous_hash')
      if older and older ~= ARGV[4] then redis.call('HDEL', KEYS[1], older) end
      if current and current ~= ARGV[4] then redis.call('HDEL', KEYS[1], current) end
      redis.call('HSET', KEYS[1], ARGV[2], ARGV[1])
      redis.call('HSET', KEYS[2], 'hash', ARGV[2], 'prefix', ARGV[3])
      if ARGV[4] == '' then
        redis.call('HDEL', KEYS[2], 'previous_hash', 'previous_key_expires_at')
      else
        redis.call('HSET', KEYS[2], 'previous_hash', ARGV[4], 'previous_key_expires_at', ARGV[5])
      end
      return 1`,
  },
  /**
   * KEYS: the entry counter, the log (sorted set, score = id). ARGV: the entry as JSON without
   * its id, the oldest time kept (ISO). Returns the new id; forgets up to 100 old entries a call.
   */
  tisAppendAudit: {
    numberOfKeys: 2,
    lua: `
      local id = redis.call('INCR', KEYS[1])
      local entry = cjson.decode(ARGV[1])
      entry['id'] = id
      redis.call('ZADD', KEYS[2], id, cjson.encode(entry))
      for _, old in ipairs(redis.call('ZRANGE', KEYS[2], 0, 99)) do
        if cjson.decode(old)['at'] >= ARGV[2] then break end
        redis.call('ZREM', KEYS[2], old)
      end
      return id`,
  },
  /**
   * KEYS: the key's entries (hash scope -> JSON), their expiry times (sorted set).
   * ARGV: scope, fingerprint, token, now (ms), marker expiry (ms), cap.
   * Returns {state, status, body}.
   */
  tisBeginIdempotent: {
    numberOfKeys: 2,
    lua: `
      for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[4], 'LIMIT', 0, 100)) do
        redis.call('HDEL', KEYS[1], gone)
        redis.call('ZREM', KEYS[2], gone)
      end
      local found = redis.call('HGET', KEYS[1], ARGV[1])
      if found then
        local e = cjson.decode(found)
        if e['f'] ~= ARGV[2] then return {'mismatch'} end
        if not e['s'] then return {'in_progress'} end
        return {'done', tostring(e['s']), e['b']}
      end
      if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[6]) then return {'full'} end
      redis.call('HSET', KEYS[1], ARGV[1], cjson.encode({f = ARGV[2], t = ARGV[3]}))
      redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
      if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) - tonumber(ARGV[4]) then
        redis.call('PEXPIREAT', KEYS[1], ARGV[5])
        redis.call('PEXPIREAT', KEYS[2], ARGV[5])
      end
      return {'started'}`,
  },
  /**
   * KEYS: as above. ARGV: scope, token, status ('' to release), body, kept until (ms).
   * Only the run that holds the marker completes or releases it.
   */
  tisEndIdempotent: {
    numberOfKeys: 2,
    lua: `
      local found = redis.call('HGET', KEYS[1], ARGV[1])
      if not found then return 0 end
      local e = cjson.decode(found)
      if e['t'] ~= ARGV[2] or e['s'] then return 0 end
      if ARGV[3] == '' then
        redis.call('HDEL', KEYS[1], ARGV[1])
        redis.call('ZREM', KEYS[2], ARGV[1])
        return 1
      end
      e['s'] = tonumber(ARGV[3])
      e['b'] = ARGV[4]
      redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(e))
      redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
      -- Kept 24 h from now: no entry of the key lives longer, so the whole key may expire then.
      redis.call('PEXPIREAT', KEYS[1], ARGV[5])
      redis.call('PEXPIREAT', KEYS[2], ARGV[5])
      return 1`,
  },
} as const;

interface ScriptCommands {
  tisUpdateKey(record: string, ...args: string[]): Promise<number>;
  tisRotateKey(index: string, record: string, ...args: string[]): Promise<number>;
  tisAppendAudit(seq: string, log: string, entry: string, keepSince: string): Promise<number>;
  tisBeginIdempotent(entries: string, expiry: string, ...args: string[]): Promise<string[]>;
  tisEndIdempotent(entries: string, expiry: string, ...args: string[]): Promise<number>;
  tisInsertKey(index: string, record: string, ...args: string[]): Promise<number>;
  tisRevokeKey(record: string, at: string): Promise<number>;
  tisTouchKey(record: string, at: string): Promise<number>;
  tisWriteOverride(overrides: string, ...args: string[]): Promise<number>;
  tisConsumeQuota(counter: string, limit: string, keepSeconds: string): Promise<[number, number]>;
}
type StoreClient = Redis & ScriptCommands;

/**
 * A day's counter lives 91 days from its first call, so the 90 days of the usage history can be
 * read, and Redis forgets it by itself afterwards.
 */
const QUOTA_KEEP_SECONDS = (USAGE_KEEP_DAYS + 1) * 86_400;

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
  'enabled',
  'previous_hash',
  'previous_key_expires_at',
] as const satisfies readonly (keyof ApiKeyRecord)[];

const REQUIRED_KEY_FIELDS = ['id', 'name', 'prefix', 'hash', 'scopes', 'plan', 'created_at'];

/** A record as hash fields; null fields are left out. */
function encodeKey(key: NewKeyRecord): string[] {
  const pairs: string[] = [];
  for (const field of KEY_FIELDS) {
    const value = key[field];
    if (value === null || value === undefined) continue;
    pairs.push(field, encodeField(field, value));
  }
  return pairs;
}

function encodeField(field: string, value: unknown): string {
  if (field === 'scopes') return JSON.stringify(value);
  if (field === 'enabled') return value ? '1' : '0';
  return String(value);
}

function decodeKey(fields: Record<string, string>): ApiKeyRecord | undefined {
  if (!fields.id) return undefined;
  const text = (name: string) => fields[name] ?? null;
  const int = (name: string) => (fields[name] === undefined ? null : Number(fields[name]));
  return {
    id: fields.id,
    name: fields.name,
    prefix: fields.prefix,
    hash: fields.hash,
    scopes: JSON.parse(fields.scopes) as string[],
    plan: fields.plan,
    daily_limit: int('daily_limit'),
    rate_limit: int('rate_limit'),
    created_at: fields.created_at,
    expires_at: text('expires_at'),
    revoked_at: text('revoked_at'),
    last_used_at: text('last_used_at'),
    enabled: fields.enabled !== '0',
    previous_hash: text('previous_hash'),
    previous_key_expires_at: text('previous_key_expires_at'),
  };
}

/** Order of the key list: by creation time, then id. */
function comparePosition(a: KeyPosition, b: KeyPosition): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** `INFO` text as name -> value. */
function parseInfo(info: string): Record<string, string> {
  const entries = info
    .split(/\r?\n/)
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]);
  return Object.fromEntries(entries) as Record<string, string>;
}

/**
 * The shared store: all state in one Redis, so several instances serve one deployment.
 * Keys (all under the settings' prefix, `tis:` by default):
 *   keys:by-hash          hash  SHA-256 of a key -> key id (the index; also "which keys exist")
 *   key:<id>              hash  the key's record
 *   config:overrides      hash  configuration key -> JSON value
 *   quota:<id>:<day>      string calls counted for a key on a UTC day (expires after 91 days)
 *   {audit}:seq, {audit}:log  the last audit entry id; the entries (sorted set by id), 90 days
 *   idem:{<id>}, idem:{<id>}:expiry  a key's idempotency entries (hash scope -> JSON) and their
 *                         expiry times (sorted set); both expire with their last entry
 *   {rate:...}:hits       the throttler's counters (src/limits/redis-throttler.storage.ts)
 * Channel `<prefix>config:overrides`: every override write is announced there; each instance's
 * subscriber connection calls the override listeners, so a change is seen everywhere at once.
 */
export class RedisStore extends Store {
  private static readonly INDEX = 'keys:by-hash';
  private static readonly OVERRIDES = 'config:overrides';
  /** The audit trail's counter and entries: one hash tag, one Cluster slot. */
  private static readonly AUDIT_SEQ = '{audit}:seq';
  private static readonly AUDIT_LOG = '{audit}:log';

  readonly kind = 'redis' as const;
  /** Tells this instance's own announcements apart: its listeners were already called. */
  private readonly origin = randomUUID();
  private readonly channel: string;
  private readonly client: StoreClient;

  private constructor(
    client: Redis,
    private readonly subscriber: Redis,
    private readonly settings: Settings,
  ) {
    super();
    for (const [name, script] of Object.entries(SCRIPTS)) {
      client.defineCommand(name, script);
    }
    this.client = client as StoreClient;
    this.channel = `${settings.redisKeyPrefix}config:overrides`;
  }

  /**
   * Connects the given command connection and a subscriber of its own, and waits until both answer.
   * On failure both are closed (no reconnection timers left behind) and StoreUnavailableError is thrown.
   */
  static async open(client: Redis, settings: Settings): Promise<RedisStore> {
    const subscriber = createRedisClient(settings, 'subscriber');
    const store = new RedisStore(client, subscriber, settings);
    try {
      await Promise.all([connectRedis(client), connectRedis(subscriber)]);
      await store.subscribe();
      return store;
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  private async subscribe(): Promise<void> {
    this.subscriber.on('message', (channel: string, origin: string) => {
      if (channel === this.channel && origin !== this.origin) this.notifyOverridesChanged();
    });
    await redisCall(this.subscriber.subscribe(this.channel));
    // Announcements made while this subscriber was disconnected are lost: listeners reload once it
    // is back, and the command connection too (a reload reads through it).
    this.subscriber.on('ready', () => {
      if (this.client.status === 'ready') this.notifyOverridesChanged();
      else this.client.once('ready', () => this.notifyOverridesChanged());
    });
  }

  describe(): string {
    return `${redactRedisUrl(this.settings.redisUrl ?? '')} (key prefix '${this.settings.redisKeyPrefix}')`;
  }

  private recordKey(id: string): string {
    return `key:${id}`;
  }

  private async insert(key: NewKeyRecord, onlyIfEmpty: boolean): Promise<boolean> {
    const inserted = await redisCall(
      this.client.tisInsertKey(
        RedisStore.INDEX,
        this.recordKey(key.id),
        onlyIfEmpty ? '1' : '0',
        key.hash,
        key.id,
        ...encodeKey(key),
      ),
    );
    return inserted === 1;
  }

  async insertKey(key: NewKeyRecord): Promise<void> {
    await this.insert(key, false);
  }

  insertKeyIfNone(key: NewKeyRecord): Promise<boolean> {
    return this.insert(key, true);
  }

  async findKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const id = await redisCall(this.client.hget(RedisStore.INDEX, hash));
    return id === null ? undefined : this.findKeyById(id);
  }

  async findKeyById(id: string): Promise<ApiKeyRecord | undefined> {
    return decodeKey(await redisCall(this.client.hgetall(this.recordKey(id))));
  }

  /** The index holds each key's hash (and a rotated key's previous one): ids once each, in order. */
  async listKeys(page: { after?: KeyPosition; limit?: number } = {}): Promise<ApiKeyRecord[]> {
    const ids = [...new Set(await redisCall(this.client.hvals(RedisStore.INDEX)))];
    const records = await Promise.all(ids.map((id) => this.findKeyById(id)));
    const after = page.after;
    const sorted = records
      .filter((r): r is ApiKeyRecord => r !== undefined)
      .filter((r) => !after || comparePosition(r, after) > 0)
      .sort(comparePosition);
    return page.limit === undefined ? sorted : sorted.slice(0, page.limit);
  }

  async updateKey(id: string, changes: KeyChanges): Promise<ApiKeyRecord | undefined> {
    const set: string[] = [];
    const unset: string[] = [];
    for (const [field, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      if (value === null) unset.push(field);
      else set.push(field, encodeField(field, value));
    }
    await redisCall(this.client.tisUpdateKey(this.recordKey(id), ...set, '--', ...unset));
    return this.findKeyById(id);
  }

  async rotateKey(id: string, rotation: KeyRotation): Promise<ApiKeyRecord | undefined> {
    await redisCall(
      this.client.tisRotateKey(
        RedisStore.INDEX,
        this.recordKey(id),
        id,
        rotation.hash,
        rotation.prefix,
        rotation.previous_hash ?? '',
        rotation.previous_key_expires_at ?? '',
      ),
    );
    return this.findKeyById(id);
  }

  async revokeKey(id: string, at: string): Promise<boolean> {
    return (await redisCall(this.client.tisRevokeKey(this.recordKey(id), at))) === 1;
  }

  async touchKey(id: string, at: string): Promise<void> {
    await redisCall(this.client.tisTouchKey(this.recordKey(id), at));
  }

  async getOverrides(): Promise<Record<string, unknown>> {
    const stored = await redisCall(this.client.hgetall(RedisStore.OVERRIDES));
    return Object.fromEntries(
      Object.entries(stored).map(([key, value]) => [key, JSON.parse(value) as unknown]),
    );
  }

  async setOverride(key: string, value: unknown): Promise<void> {
    await this.writeOverride(key, JSON.stringify(value));
  }

  async deleteOverride(key: string): Promise<void> {
    await this.writeOverride(key);
  }

  private async writeOverride(key: string, json?: string): Promise<void> {
    const args = [this.channel, this.origin, key, ...(json === undefined ? [] : [json])];
    await redisCall(this.client.tisWriteOverride(RedisStore.OVERRIDES, ...args));
    this.notifyOverridesChanged();
  }

  async consumeQuota(keyId: string, day: string, limit: number | null): Promise<QuotaResult> {
    const [counted, used] = await redisCall(
      this.client.tisConsumeQuota(
        `quota:${keyId}:${day}`,
        String(limit ?? -1),
        String(QUOTA_KEEP_SECONDS),
      ),
    );
    return { allowed: counted === 1, used };
  }

  async getUsage(keyId: string, day: string): Promise<number> {
    return Number((await redisCall(this.client.get(`quota:${keyId}:${day}`))) ?? 0);
  }

  async getUsageDays(keyId: string, days: string[]): Promise<number[]> {
    if (!days.length) return [];
    const counts = await redisCall(this.client.mget(days.map((day) => `quota:${keyId}:${day}`)));
    return counts.map((count) => Number(count ?? 0));
  }

  async appendAudit(entry: Omit<AuditEntry, 'id'>, keepSince: string): Promise<AuditEntry> {
    const id = await redisCall(
      this.client.tisAppendAudit(
        RedisStore.AUDIT_SEQ,
        RedisStore.AUDIT_LOG,
        JSON.stringify(entry),
        keepSince,
      ),
    );
    return { id, ...entry };
  }

  async listAudit(query: { before?: number; limit: number; since: string }): Promise<AuditEntry[]> {
    const max = query.before === undefined ? '+inf' : `(${query.before}`;
    const found = await redisCall(
      this.client.zrevrangebyscore(RedisStore.AUDIT_LOG, max, '-inf', 'LIMIT', 0, query.limit),
    );
    return found
      .map((json) => {
        const e = JSON.parse(json) as AuditEntry;
        // Lua's cjson writes an empty table as an object: details stay an object.
        return { ...e, details: e.details ?? {} };
      })
      .filter((e) => e.at >= query.since);
  }

  async beginIdempotent(
    claim: IdempotencyClaim,
    nowMs: number,
    runningUntilMs: number,
    cap: number,
  ): Promise<IdempotencyBegin> {
    const [state, status, body] = await redisCall(
      this.client.tisBeginIdempotent(
        ...this.idempotencyKeys(claim.keyId),
        claim.scope,
        claim.fingerprint,
        claim.token,
        String(nowMs),
        String(runningUntilMs),
        String(cap),
      ),
    );
    if (state === 'done') return { state, status: Number(status), body };
    return { state } as IdempotencyBegin;
  }

  async completeIdempotent(
    claim: IdempotencyClaim,
    status: number,
    body: string,
    keepUntilMs: number,
  ): Promise<void> {
    await redisCall(
      this.client.tisEndIdempotent(
        ...this.idempotencyKeys(claim.keyId),
        claim.scope,
        claim.token,
        String(status),
        body,
        String(keepUntilMs),
      ),
    );
  }

  async releaseIdempotent(claim: IdempotencyClaim): Promise<void> {
    await redisCall(
      this.client.tisEndIdempotent(
        ...this.idempotencyKeys(claim.keyId),
        claim.scope,
        claim.token,
        '',
        '',
        '0',
      ),
    );
  }

  private idempotencyKeys(keyId: string): [string, string] {
    // One hash tag: both keys in one Cluster slot, as the script that uses them together needs.
    return [`idem:{${keyId}}`, `idem:{${keyId}}:expiry`];
  }

  /** Both connections must be up: without the subscriber, overrides would not reach this instance. */
  async ping(): Promise<void> {
    await redisCall(this.client.ping());
    if (this.subscriber.status !== 'ready') {
      throw new StoreUnavailableError('Redis cannot be reached: the subscriber connection is down');
    }
  }

  /** A ping and one read (the key index's size): two commands however many keys there are. */
  async probe(): Promise<void> {
    await this.ping();
    await redisCall(this.client.hlen(RedisStore.INDEX));
  }

  /** The key index against the records it names, and whether Redis is failing to persist writes. */
  async checkIntegrity(): Promise<string[]> {
    const problems = await this.checkKeyIndex();
    const info = await this.persistenceInfo();
    if (info.aof_last_write_status && info.aof_last_write_status !== 'ok') {
      problems.push(
        `Redis cannot write its AOF file (aof_last_write_status: ${info.aof_last_write_status})`,
      );
    }
    if (info.rdb_last_bgsave_status && info.rdb_last_bgsave_status !== 'ok') {
      problems.push('The last Redis snapshot (BGSAVE) failed');
    }
    return problems;
  }

  /** Redis settings that can lose data: no AOF, or an eviction policy that may drop keys. */
  override async durabilityWarnings(): Promise<string[]> {
    const info = await this.persistenceInfo();
    const warnings: string[] = [];
    if (info.aof_enabled !== '1') {
      warnings.push(
        'Redis runs without AOF (appendonly no): keys and counts since the last snapshot are lost if Redis stops',
      );
    }
    const policy = info.maxmemory_policy;
    if (info.maxmemory && info.maxmemory !== '0' && policy && policy !== 'noeviction') {
      warnings.push(
        `Redis may evict keys under memory pressure (maxmemory-policy ${policy}): API keys or quota counters could vanish; use noeviction`,
      );
    }
    return warnings;
  }

  private async persistenceInfo(): Promise<Record<string, string>> {
    return parseInfo(
      (await redisCall(this.client.info('persistence'))) +
        (await redisCall(this.client.info('memory'))),
    );
  }

  private async checkKeyIndex(): Promise<string[]> {
    const index = Object.entries(await redisCall(this.client.hgetall(RedisStore.INDEX)));
    const records = await Promise.all(
      index.map(([, id]) => redisCall(this.client.hgetall(this.recordKey(id)))),
    );
    return index.flatMap(([hash, id], i) => {
      const fields = records[i];
      if (!fields.id) return [`The key index names ${id}, which has no record`];
      if (fields.hash !== hash && fields.previous_hash !== hash) {
        return [`Key ${id}: its record and the index disagree on its hash`];
      }
      const missing = REQUIRED_KEY_FIELDS.filter((f) => !fields[f]);
      return missing.length ? [`Key ${id}: its record lacks ${missing.join(', ')}`] : [];
    });
  }

  async close(): Promise<void> {
    await Promise.all([closeRedis(this.client), closeRedis(this.subscriber)]);
  }
}
