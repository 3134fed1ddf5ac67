import Redis, { ChainableCommander, Cluster } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { describeRedisTarget } from '../settings/redis.settings';
import type { Settings } from '../settings/settings';
import {
  asStoreError,
  closeRedis,
  connectRedis,
  createRedisClient,
  parseInfo,
  RedisClient,
  redisCall,
} from './redis.connection';
import { idOfIndexMember, indexMember, RedisKeys } from './redis.keys';
import { SCRIPTS } from './redis.scripts';
import { USAGE_KEEP_DAYS } from './sqlite.store';
import {
  ApiKeyRecord,
  AuditEntry,
  IdempotencyBegin,
  IdempotencyCaps,
  IdempotencyClaim,
  KeyChanges,
  KeyPosition,
  KeyRotation,
  NewKeyRecord,
  QuotaResult,
  Store,
  StoreTopology,
  StoreUnavailableError,
} from './store';

/** How long a key or configuration write waits for REDIS_WAIT_REPLICAS replicas: else 503. */
export const WAIT_TIMEOUT_MS = 500;
/** The initial-key lock outlives any start-up that holds it (commands time out after 3 s). */
const INITIAL_KEY_LOCK_MS = 60_000;
/** Hashes and records kept by `findKeyByHash` before it starts over. */
const MAX_KNOWN_HASHES = 10_000;
/** A kept record is read again after this long, so that its `last_used_at` follows the touches. */
const KEPT_RECORD_MS = 60_000;
/** Expired idempotency entries of one key forgotten by one script of the purge. */
const PURGE_SLICE = 1000;

/** A Redis glob pattern matching `text` itself: its special characters escaped. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * A day's counter lives 91 days from its first call, so the 90 days of the usage history can be
 * read, and Redis forgets it by itself afterwards.
 */
export const QUOTA_KEEP_SECONDS = (USAGE_KEEP_DAYS + 1) * 86_400;

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

/** Whether the record accepts this secret's hash (its current one, or the one in its grace). */
function opens(record: ApiKeyRecord, hash: string): boolean {
  return record.hash === hash || record.previous_hash === hash;
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
    revision: Number(fields.revision ?? 0),
  };
}

/**
 * The shared store: all state in Redis, so several instances serve one deployment. One Redis, a
 * master behind Sentinels or a Redis Cluster: the same code on each (the key layout of
 * redis.keys.ts keeps every script on one slot, and nothing uses KEYS or a cross-slot command).
 *
 * Key and configuration writes are durable under REDIS_WAIT_REPLICAS: each is followed, in the same
 * round trip and on the same node, by `WAIT n 500`, and fewer acknowledgements are a 503. Quota
 * counts, rate windows, last-used times, audit entries and idempotency entries do not wait.
 *
 * Channel `<prefix>config:overrides`: every override write is announced there; each instance's
 * subscriber connection calls the override listeners, so a change is seen everywhere at once (on a
 * Cluster, a PUBLISH reaches the subscribers of every node).
 */
export class RedisStore extends Store {
  readonly kind = 'redis' as const;
  /** Tells this instance's own announcements apart: its listeners were already called. */
  private readonly origin = randomUUID();
  /** Key ids by the hash of a secret, as lookups named them (see `findKeyByHash`). */
  private readonly idsByHash = new Map<string, string>();
  /** Records as last read, by key id, until when they may be used (see `findKeyByHash`). */
  private readonly kept = new Map<string, { record: ApiKeyRecord; until: number }>();
  private readonly channel: string;
  private readonly waitReplicas: number;

  private constructor(
    private readonly client: RedisClient,
    private readonly subscriber: RedisClient,
    private readonly settings: Settings,
  ) {
    super();
    for (const [name, script] of Object.entries(SCRIPTS)) {
      client.defineCommand(name, script);
    }
    this.channel = `${settings.redisKeyPrefix}config:overrides`;
    this.waitReplicas = settings.redis?.waitReplicas ?? 0;
  }

  /**
   * Connects the given command connection and a subscriber of its own, and waits until both answer.
   * On failure both are closed (no reconnection timers left behind) and StoreUnavailableError is thrown.
   */
  static async open(client: RedisClient, settings: Settings): Promise<RedisStore> {
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

  private get mode(): StoreTopology['mode'] {
    return this.settings.redis?.mode ?? 'single';
  }

  /** Where the data is: the URL without its password, the Sentinels and the master they name now, or the cluster's seeds. */
  describe(): string {
    const redis = this.settings.redis;
    const where = redis ? describeRedisTarget(redis) : '(no Redis configured)';
    const now =
      this.client instanceof Cluster
        ? `, ${this.client.nodes('master').length} masters and ${this.client.nodes('slave').length} replicas`
        : this.mode === 'sentinel' && this.client.stream?.remoteAddress
          ? `, master now ${this.client.stream.remoteAddress}:${this.client.stream.remotePort}`
          : '';
    return `${where} (key prefix '${this.settings.redisKeyPrefix}'${now})`;
  }

  /**
   * One write, made durable when REDIS_WAIT_REPLICAS asks it: `WAIT` follows in the same pipeline,
   * which on a Cluster goes to the node of the write's slot. Returns the write's reply.
   */
  private async durable<T>(
    write: (pipeline: ChainableCommander) => ChainableCommander,
  ): Promise<T> {
    const pipeline = write(this.client.pipeline());
    if (this.waitReplicas > 0) pipeline.wait(this.waitReplicas, WAIT_TIMEOUT_MS);
    const results = (await redisCall(pipeline.exec())) ?? [];
    for (const [error] of results) if (error) throw asStoreError(error);
    if (this.waitReplicas > 0) {
      const acknowledged = Number(results[1]?.[1]);
      if (!(acknowledged >= this.waitReplicas)) {
        throw new StoreUnavailableError(
          `Redis: ${acknowledged} of ${this.waitReplicas} replica(s) acknowledged the write within ${WAIT_TIMEOUT_MS} ms`,
        );
      }
    }
    return results[0]?.[1] as T;
  }

  /**
   * Record first, then the index, then the secret's lookup: each step is one slot, and a key is
   * usable only once all three are written. A start that died in between leaves a record without
   * a lookup (a key no secret opens), which doctor reports.
   */
  private async insert(key: NewKeyRecord): Promise<void> {
    await this.durable((p) => p.tisInsertRecord(RedisKeys.record(key.id), ...encodeKey(key)));
    await this.durable((p) => p.zadd(RedisKeys.keyIndex, 0, indexMember(key)));
    const set = await this.durable<string | null>((p) =>
      p.set(RedisKeys.hashLookup(key.hash), key.id, 'NX'),
    );
    if (set !== 'OK') throw new Error('An API key with this hash already exists');
  }

  insertKey(key: NewKeyRecord): Promise<void> {
    return this.insert(key);
  }

  /**
   * One instance wins the initial-key lock (SET NX), and only while no key exists; it then inserts.
   * A winner that fails to insert gives the lock back.
   */
  async insertKeyIfNone(key: NewKeyRecord): Promise<boolean> {
    const claimed = await redisCall(
      this.client.tisClaimInitialKey(
        RedisKeys.keyIndex,
        RedisKeys.initialKeyLock,
        key.id,
        String(INITIAL_KEY_LOCK_MS),
      ),
    );
    if (claimed !== 1) return false;
    try {
      await this.insert(key);
    } catch (error) {
      // The next start may try again at once (say a replica had not yet acknowledged the write).
      await this.client.del(RedisKeys.initialKeyLock).catch(() => undefined);
      throw error;
    }
    return true;
  }

  /**
   * The lookup names a key id; the record decides. A lookup left behind by a rotation that died
   * half-way, or one whose hash the record no longer holds, opens nothing.
   *
   * So the id a hash once named may be kept in memory: a secret's hash never names another key.
   * The record is kept too, with its revision: a call made with a kept record is counted by a
   * script that first compares the revision, and counts nothing when the record has changed since
   * (CallCounter, KeyRecordChanged); a refusal is never made on a kept record (`fresh`). That
   * saves every call but a key's first on this instance two round trips (and, on a Cluster, a
   * second master).
   */
  async findKeyByHash(
    hash: string,
    options: { fresh?: boolean } = {},
  ): Promise<ApiKeyRecord | undefined> {
    const known = this.idsByHash.get(hash);
    if (known !== undefined && !options.fresh) {
      const kept = this.kept.get(known);
      if (kept && kept.until > Date.now() && opens(kept.record, hash)) return kept.record;
    }
    const id = known ?? (await redisCall(this.client.get(RedisKeys.hashLookup(hash))));
    if (id === null) return undefined;
    const record = await this.findKeyById(id);
    if (!record || !opens(record, hash)) {
      this.idsByHash.delete(hash);
      return undefined;
    }
    // Only hashes and records of live keys are kept, so unknown tokens cannot grow them.
    if (this.kept.size >= MAX_KNOWN_HASHES) this.kept.clear();
    this.kept.set(id, { record: Object.freeze(record), until: Date.now() + KEPT_RECORD_MS });
    if (known === undefined) {
      if (this.idsByHash.size >= MAX_KNOWN_HASHES) this.idsByHash.clear();
      this.idsByHash.set(hash, id);
    }
    return record;
  }

  async findKeyById(id: string): Promise<ApiKeyRecord | undefined> {
    return decodeKey(await redisCall(this.client.hgetall(RedisKeys.record(id))));
  }

  /** A page of the index (sorted by `(created_at, id)` in Redis), then each record from its own slot. */
  async listKeys(page: { after?: KeyPosition; limit?: number } = {}): Promise<ApiKeyRecord[]> {
    const min = page.after ? `(${indexMember(page.after)}` : '-';
    const members = await redisCall(
      page.limit === undefined
        ? this.client.zrangebylex(RedisKeys.keyIndex, min, '+')
        : this.client.zrangebylex(RedisKeys.keyIndex, min, '+', 'LIMIT', 0, page.limit),
    );
    const records = await Promise.all(members.map((m) => this.findKeyById(idOfIndexMember(m))));
    return records.filter((r): r is ApiKeyRecord => r !== undefined);
  }

  async updateKey(id: string, changes: KeyChanges): Promise<ApiKeyRecord | undefined> {
    const set: string[] = [];
    const unset: string[] = [];
    for (const [field, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      if (value === null) unset.push(field);
      else set.push(field, encodeField(field, value));
    }
    await this.durable((p) => p.tisUpdateKey(RedisKeys.record(id), ...set, '--', ...unset));
    this.kept.delete(id);
    return this.findKeyById(id);
  }

  /**
   * The record first (it decides which secrets open the key), then the lookups: the new secret's,
   * the kept one's expiry at the end of its grace, and the removal of those no longer accepted.
   */
  async rotateKey(id: string, rotation: KeyRotation): Promise<ApiKeyRecord | undefined> {
    const dropped = await this.durable<string[] | null>((p) =>
      p.tisRotateKey(
        RedisKeys.record(id),
        rotation.hash,
        rotation.prefix,
        rotation.previous_hash ?? '',
        rotation.previous_key_expires_at ?? '',
      ),
    );
    if (dropped === null) return undefined;
    this.kept.delete(id);
    await this.durable((p) => p.set(RedisKeys.hashLookup(rotation.hash), id));
    const steps = dropped.map((hash) => this.durable((p) => p.del(RedisKeys.hashLookup(hash))));
    const graceEnd = Date.parse(rotation.previous_key_expires_at ?? '');
    if (rotation.previous_hash && Number.isFinite(graceEnd)) {
      steps.push(
        this.durable((p) =>
          p.pexpireat(RedisKeys.hashLookup(rotation.previous_hash ?? ''), graceEnd),
        ),
      );
    }
    await Promise.all(steps);
    return this.findKeyById(id);
  }

  async revokeKey(id: string, at: string): Promise<boolean> {
    const revoked = await this.durable<number>((p) => p.tisRevokeKey(RedisKeys.record(id), at));
    this.kept.delete(id);
    return revoked === 1;
  }

  async touchKey(id: string, at: string): Promise<void> {
    await redisCall(this.client.tisTouchKey(RedisKeys.record(id), at));
  }

  async getOverrides(): Promise<Record<string, unknown>> {
    const stored = await redisCall(this.client.hgetall(RedisKeys.overrides));
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
    await this.durable((p) => p.tisWriteOverride(RedisKeys.overrides, ...args));
    this.notifyOverridesChanged();
  }

  async consumeQuota(keyId: string, day: string, limit: number | null): Promise<QuotaResult> {
    const [counted, used] = await redisCall(
      this.client.tisConsumeQuota(
        RedisKeys.quota(keyId, day),
        String(limit ?? -1),
        String(QUOTA_KEEP_SECONDS),
      ),
    );
    return { allowed: counted === 1, used };
  }

  async getUsage(keyId: string, day: string): Promise<number> {
    return Number((await redisCall(this.client.get(RedisKeys.quota(keyId, day)))) ?? 0);
  }

  /** One MGET: a key's days share its slot. */
  async getUsageDays(keyId: string, days: string[]): Promise<number[]> {
    if (!days.length) return [];
    const counts = await redisCall(
      this.client.mget(days.map((day) => RedisKeys.quota(keyId, day))),
    );
    return counts.map((count) => Number(count ?? 0));
  }

  async appendAudit(entry: Omit<AuditEntry, 'id'>, keepSince: string): Promise<AuditEntry> {
    const id = await redisCall(
      this.client.tisAppendAudit(
        RedisKeys.auditSeq,
        RedisKeys.auditLog,
        JSON.stringify(entry),
        keepSince,
      ),
    );
    return { id, ...entry };
  }

  async listAudit(query: { before?: number; limit: number; since: string }): Promise<AuditEntry[]> {
    const max = query.before === undefined ? '+inf' : `(${query.before}`;
    const found = await redisCall(
      this.client.zrevrangebyscore(RedisKeys.auditLog, max, '-inf', 'LIMIT', 0, query.limit),
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
    caps: IdempotencyCaps,
  ): Promise<IdempotencyBegin> {
    const [state, status, body] = await redisCall(
      this.client.tisBeginIdempotent(
        ...RedisKeys.idempotency(claim.keyId),
        claim.scope,
        claim.fingerprint,
        claim.token,
        String(nowMs),
        String(runningUntilMs),
        String(caps.entries),
        String(caps.bytes),
        String(claim.markerBytes),
      ),
    );
    if (state === 'done') return { state, status: Number(status), body };
    if (state === 'full') return { state, retryAtMs: Number(status) };
    return { state } as IdempotencyBegin;
  }

  async completeIdempotent(
    claim: IdempotencyClaim,
    status: number,
    body: string,
    keepUntilMs: number,
    answerBytes: number,
  ): Promise<void> {
    await redisCall(
      this.client.tisEndIdempotent(
        ...RedisKeys.idempotency(claim.keyId),
        claim.scope,
        claim.token,
        String(status),
        body,
        String(keepUntilMs),
        String(answerBytes),
      ),
    );
  }

  async releaseIdempotent(claim: IdempotencyClaim): Promise<void> {
    await redisCall(
      this.client.tisEndIdempotent(
        ...RedisKeys.idempotency(claim.keyId),
        claim.scope,
        claim.token,
        '',
        '',
        '0',
        '0',
      ),
    );
  }

  /**
   * Every key's entries, found by SCAN on each master (a Cluster's every master), each key's
   * expired ones forgotten by one script on its own slot, PURGE_SLICE at a time.
   */
  async purgeIdempotent(nowMs: number): Promise<number> {
    const prefix = this.settings.redisKeyPrefix;
    const match = `${escapeGlob(prefix)}${RedisKeys.idempotencyExpiryPattern}`;
    let purged = 0;
    for (const master of this.masters()) {
      let cursor = '0';
      do {
        const [next, found] = await redisCall(master.scan(cursor, 'MATCH', match, 'COUNT', 1000));
        cursor = next;
        for (const key of found) {
          const id = /^\{([^{}]+)\}:idem:expiry$/.exec(key.slice(prefix.length))?.[1];
          if (id !== undefined) purged += await this.purgeKey(id, nowMs);
        }
      } while (cursor !== '0');
    }
    return purged;
  }

  private async purgeKey(id: string, nowMs: number): Promise<number> {
    let purged = 0;
    for (;;) {
      const forgotten = await redisCall(
        this.client.tisPurgeIdempotent(
          ...RedisKeys.idempotency(id),
          String(nowMs),
          String(PURGE_SLICE),
        ),
      );
      purged += forgotten;
      if (forgotten < PURGE_SLICE) return purged;
    }
  }

  /** Both connections must be up: without the subscriber, overrides would not reach this instance. */
  async ping(): Promise<void> {
    await redisCall(this.client.ping());
    this.checkSubscriber();
  }

  private checkSubscriber(): void {
    if (this.subscriber.status !== 'ready') {
      throw new StoreUnavailableError('Redis cannot be reached: the subscriber connection is down');
    }
  }

  /**
   * Two commands however many keys there are: a ping (under Sentinel, `INFO replication`, which
   * also says that the server is still the master and how many replicas follow it) and one read
   * (the key index's size). A Cluster's node count is the client's slot map: no command.
   */
  async probe(): Promise<StoreTopology> {
    let nodes = 1;
    if (this.mode === 'sentinel') {
      const info = parseInfo(await redisCall(this.client.info('replication')));
      if (info.role !== 'master') {
        throw new StoreUnavailableError(`Redis: the server named master is a ${info.role}`);
      }
      nodes = 1 + Number(info.connected_slaves ?? 0);
    } else {
      await redisCall(this.client.ping());
      if (this.client instanceof Cluster) nodes = this.client.nodes('all').length;
    }
    await redisCall(this.client.zcard(RedisKeys.keyIndex));
    this.checkSubscriber();
    return { mode: this.mode, nodes };
  }

  /** Each master: a Cluster's every master, else the one server the client talks to. */
  private masters(): Redis[] {
    return this.client instanceof Cluster ? this.client.nodes('master') : [this.client];
  }

  /** The key index against the records and lookups, and whether any master is failing to persist writes. */
  async checkIntegrity(): Promise<string[]> {
    const problems = await this.checkKeyIndex();
    for (const { node, info } of await this.mastersInfo('persistence')) {
      if (info.aof_last_write_status && info.aof_last_write_status !== 'ok') {
        problems.push(
          `Redis${node} cannot write its AOF file (aof_last_write_status: ${info.aof_last_write_status})`,
        );
      }
      if (info.rdb_last_bgsave_status && info.rdb_last_bgsave_status !== 'ok') {
        problems.push(`The last Redis snapshot (BGSAVE)${node} failed`);
      }
    }
    return problems;
  }

  /**
   * Redis settings that can lose data: no AOF, an eviction policy that may drop keys, or fewer
   * replicas than REDIS_WAIT_REPLICAS (key and configuration writes then answer 503).
   */
  override async durabilityWarnings(): Promise<string[]> {
    const warnings: string[] = [];
    const masters = await this.mastersInfo('persistence', 'memory', 'replication');
    for (const { node, info } of masters) {
      if (info.aof_enabled !== '1') {
        warnings.push(
          `Redis${node} runs without AOF (appendonly no): keys and counts since the last snapshot are lost if Redis stops`,
        );
      }
      const policy = info.maxmemory_policy;
      if (info.maxmemory && info.maxmemory !== '0' && policy && policy !== 'noeviction') {
        warnings.push(
          `Redis${node} may evict keys under memory pressure (maxmemory-policy ${policy}): API keys or quota counters could vanish; use noeviction`,
        );
      }
      const replicas = Number(info.connected_slaves ?? 0);
      if (replicas < this.waitReplicas) {
        warnings.push(
          `Redis${node} has ${replicas} connected replica(s) but REDIS_WAIT_REPLICAS is ${this.waitReplicas}: key and configuration changes answer 503 until a replica follows it`,
        );
      }
    }
    return warnings;
  }

  /** `INFO` sections of each master; on a Cluster each is named (` node host:port`). */
  private async mastersInfo(
    ...sections: string[]
  ): Promise<{ node: string; info: Record<string, string> }[]> {
    const named = this.client instanceof Cluster;
    return Promise.all(
      this.masters().map(async (master) => {
        const texts = await Promise.all(sections.map((s) => redisCall(master.info(s))));
        const node = named ? ` node ${master.options.host}:${master.options.port}` : '';
        return { node, info: parseInfo(texts.join('\n')) };
      }),
    );
  }

  /** Every key in the index has a record that agrees, and its current secret has a lookup. */
  private async checkKeyIndex(): Promise<string[]> {
    const ids = (await redisCall(this.client.zrange(RedisKeys.keyIndex, 0, -1))).map(
      idOfIndexMember,
    );
    const found = await Promise.all(
      ids.map(async (id) => {
        const fields = await redisCall(this.client.hgetall(RedisKeys.record(id)));
        const lookup = fields.hash
          ? await redisCall(this.client.get(RedisKeys.hashLookup(fields.hash)))
          : null;
        return { id, fields, lookup };
      }),
    );
    return found.flatMap(({ id, fields, lookup }) => {
      if (!fields.id) return [`The key index names ${id}, which has no record`];
      const missing = REQUIRED_KEY_FIELDS.filter((f) => !fields[f]);
      if (missing.length) return [`Key ${id}: its record lacks ${missing.join(', ')}`];
      if (lookup !== id) return [`Key ${id}: no lookup leads from its secret's hash to it`];
      return [];
    });
  }

  async close(): Promise<void> {
    await Promise.all([closeRedis(this.client), closeRedis(this.subscriber)]);
  }
}
