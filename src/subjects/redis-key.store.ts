import type { RedisDatabase } from '../kernel/store/redis/redis.database';
import { redisCall } from '../kernel/store/redis/redis.connection';
import { idOfIndexMember, indexMember, RedisKeys } from '../kernel/store/redis/redis.keys';
import {
  ApiKeyRecord,
  KeyChanges,
  KeyPosition,
  KeyRotation,
  KeyStore,
  NewKeyRecord,
} from './key.store';
import { RECORD_SCRIPTS, updateArguments } from './redis-record.scripts';
import { KEY_SCRIPTS } from './redis-key.scripts';
import { checkKeyLayout } from './redis-key.integrity';

/** The initial-key lock outlives any start-up that holds it (commands time out after 3 s). */
const INITIAL_KEY_LOCK_MS = 60_000;
/** Hashes and records kept by `findKeyByHash` before it starts over. */
const MAX_KNOWN_HASHES = 10_000;
/** A cached record is read again after this long, so that its `last_used_at` follows the touches. */
const CACHED_RECORD_MS = 60_000;

const KEY_FIELDS = [
  'id',
  'name',
  'prefix',
  'hash',
  'scopes',
  'plan',
  'daily_limit',
  'monthly_limit',
  'rate_limit',
  'created_at',
  'expires_at',
  'revoked_at',
  'last_used_at',
  'enabled',
  'previous_hash',
  'previous_key_expires_at',
  'external_id',
] as const satisfies readonly (keyof ApiKeyRecord)[];

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
    monthly_limit: int('monthly_limit'),
    rate_limit: int('rate_limit'),
    created_at: fields.created_at,
    expires_at: text('expires_at'),
    revoked_at: text('revoked_at'),
    last_used_at: text('last_used_at'),
    enabled: fields.enabled !== '0',
    previous_hash: text('previous_hash'),
    previous_key_expires_at: text('previous_key_expires_at'),
    // Absent from the records written before keys had one, as from those that have none.
    external_id: text('external_id'),
    revision: Number(fields.revision ?? 0),
  };
}

/** Keys in Redis: a record hash per key, a lookup per secret's hash, the ordered index. */
export class RedisKeyStore extends KeyStore {
  /** Key ids by the hash of a secret, as lookups named them (see `findKeyByHash`). */
  private readonly idsByHash = new Map<string, string>();
  /** Records as last read, by key id, until when they may be used (see `findKeyByHash`). */
  private readonly cache = new Map<string, { record: ApiKeyRecord; until: number }>();

  /** The next read of a key's record, by id, not yet sent: whoever asks before it goes joins it. */
  private readonly nextRead = new Map<string, Promise<ApiKeyRecord | undefined>>();

  constructor(private readonly redis: RedisDatabase) {
    super();
    redis.define(RECORD_SCRIPTS);
    redis.define(KEY_SCRIPTS);
  }

  private get client() {
    return this.redis.client;
  }

  /**
   * Record first, then the index, then the secret's lookup: each step is one slot, and a key is
   * usable only once all three are written. A start that died in between leaves a record without
   * a lookup (a key no secret opens), which doctor reports.
   */
  private async insert(key: NewKeyRecord): Promise<void> {
    await this.redis.durable((p) => p.tisInsertRecord(RedisKeys.record(key.id), ...encodeKey(key)));
    await this.redis.durable((p) => p.zadd(RedisKeys.keyIndex, 0, indexMember(key)));
    const set = await this.redis.durable<string | null>((p) =>
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
   * The record is kept too, with its revision: a call made with a cached record is counted by a
   * script that first compares the revision, and counts nothing when the record has changed since
   * (CallCounter, SubjectRecordChanged); a refusal is never made on a cached record (`fresh`). That
   * saves every call but a key's first on this instance two round trips (and, on a Cluster, a
   * second master).
   */
  async findKeyByHash(
    hash: string,
    options: { fresh?: boolean } = {},
  ): Promise<ApiKeyRecord | undefined> {
    const known = this.idsByHash.get(hash);
    if (known !== undefined && !options.fresh) {
      const kept = this.cache.get(known);
      if (kept && kept.until > Date.now() && opens(kept.record, hash)) return kept.record;
    }
    const id = known ?? (await redisCall(this.client.get(RedisKeys.hashLookup(hash))));
    if (id === null) return undefined;
    const record = await this.readShared(id);
    if (!record || !opens(record, hash)) {
      this.idsByHash.delete(hash);
      return undefined;
    }
    // Only hashes and records of live keys are kept, so unknown tokens cannot grow them.
    if (this.cache.size >= MAX_KNOWN_HASHES) this.cache.clear();
    this.cache.set(id, { record, until: Date.now() + CACHED_RECORD_MS });
    if (known === undefined) {
      if (this.idsByHash.size >= MAX_KNOWN_HASHES) this.idsByHash.clear();
      this.idsByHash.set(hash, id);
    }
    return record;
  }

  /**
   * The key's record as read after the caller asked: the read is sent once this turn of the event
   * loop has run (setImmediate), and every caller that asks before then shares it. An MCP POST reads
   * its key afresh (McpController); under load the POSTs of one key that arrive together cost one
   * HGETALL, not one each (docs/scaling.md). Shared, so frozen.
   */
  private readShared(id: string): Promise<ApiKeyRecord | undefined> {
    let read = this.nextRead.get(id);
    if (!read) {
      read = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        this.nextRead.delete(id);
        const record = await this.findKeyById(id);
        return record && Object.freeze(record);
      });
      this.nextRead.set(id, read);
    }
    return read;
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
    const args = updateArguments(changes, encodeField);
    await this.redis.durable((p) => p.tisUpdateRecord(RedisKeys.record(id), ...args));
    this.cache.delete(id);
    return this.findKeyById(id);
  }

  /**
   * The record first (it decides which secrets open the key), then the lookups: the new secret's,
   * the kept one's expiry at the end of its grace, and the removal of those no longer accepted.
   */
  async rotateKey(id: string, rotation: KeyRotation): Promise<ApiKeyRecord | undefined> {
    const dropped = await this.redis.durable<string[] | null>((p) =>
      p.tisRotateKey(
        RedisKeys.record(id),
        rotation.hash,
        rotation.prefix,
        rotation.previous_hash ?? '',
        rotation.previous_key_expires_at ?? '',
      ),
    );
    if (dropped === null) return undefined;
    this.cache.delete(id);
    await this.redis.durable((p) => p.set(RedisKeys.hashLookup(rotation.hash), id));
    const steps = dropped.map((hash) =>
      this.redis.durable((p) => p.del(RedisKeys.hashLookup(hash))),
    );
    const graceEnd = Date.parse(rotation.previous_key_expires_at ?? '');
    if (rotation.previous_hash && Number.isFinite(graceEnd)) {
      steps.push(
        this.redis.durable((p) =>
          p.pexpireat(RedisKeys.hashLookup(rotation.previous_hash ?? ''), graceEnd),
        ),
      );
    }
    await Promise.all(steps);
    return this.findKeyById(id);
  }

  async revokeKey(id: string, at: string): Promise<boolean> {
    const revoked = await this.redis.durable<number>((p) =>
      p.tisRevokeKey(RedisKeys.record(id), at),
    );
    this.cache.delete(id);
    return revoked === 1;
  }

  /** The copy kept of this key takes the new time (it is not read again for a touch). */
  async touchKey(id: string, at: string): Promise<void> {
    await redisCall(this.client.tisTouchRecord(RedisKeys.record(id), 'last_used_at', at));
    const kept = this.cache.get(id);
    if (kept) {
      const record = Object.freeze({ ...kept.record, last_used_at: at });
      this.cache.set(id, { record, until: kept.until });
    }
  }

  /** The key index against the records and lookups (the newest keys: checkKeyLayout). */
  override checkIntegrity(): Promise<string[]> {
    return checkKeyLayout(this.client);
  }
}
