import { randomUUID } from 'node:crypto';
import type { RedisDatabase } from '../kernel/store/redis/redis.database';
import { redisCall } from '../kernel/store/redis/redis.connection';
import { idOfIndexMember, indexMember, RedisKeys } from '../kernel/store/redis/redis.keys';
import { RECORD_SCRIPTS, updateArguments } from './redis-record.scripts';
import { PRINCIPAL_SCRIPTS } from './redis-principal.scripts';
import {
  NewPrincipalRecord,
  PrincipalChanges,
  PrincipalPosition,
  PrincipalRecord,
  PrincipalStore,
} from './principal.store';

/** Records kept by `ensurePrincipal` before it starts over. */
const MAX_CACHED_RECORDS = 10_000;
/** A cached record is read again after this long (as a key's, see RedisKeyStore). */
const CACHED_RECORD_MS = 60_000;
/** A lock of `exclusively` lapses this long after its holder last renewed it (every third of it). */
const LOCK_MS = 30_000;
/** How often an instance waiting for a lock looks whether it is still held. */
const LOCK_POLL_MS = 200;
/** Index entries read at once by the purge of idle principals. */
const PURGE_PAGE = 500;

const FIELDS = [
  'id',
  'issuer',
  'subject',
  'client_id',
  'plan',
  'token_plan',
  'daily_limit',
  'monthly_limit',
  'rate_limit',
  'enabled',
  'scopes',
  'first_seen_at',
  'last_seen_at',
  'external_id',
] as const satisfies readonly (keyof PrincipalRecord)[];

function encodeField(field: string, value: unknown): string {
  if (field === 'enabled') return value ? '1' : '0';
  if (field === 'scopes') return (value as string[]).join(' ');
  return String(value);
}

function encode(record: NewPrincipalRecord | PrincipalRecord): string[] {
  const pairs: string[] = [];
  for (const field of FIELDS) {
    const value = (record as Partial<PrincipalRecord>)[field];
    if (value === null || value === undefined) continue;
    pairs.push(field, encodeField(field, value));
  }
  return pairs;
}

function decode(fields: Record<string, string>): PrincipalRecord | undefined {
  if (!fields.id) return undefined;
  const text = (name: string) => fields[name] ?? null;
  const int = (name: string) => (fields[name] === undefined ? null : Number(fields[name]));
  return {
    id: fields.id,
    issuer: fields.issuer,
    subject: fields.subject,
    client_id: text('client_id'),
    plan: text('plan'),
    token_plan: text('token_plan'),
    daily_limit: int('daily_limit'),
    monthly_limit: int('monthly_limit'),
    rate_limit: int('rate_limit'),
    enabled: fields.enabled !== '0',
    scopes: fields.scopes === undefined ? null : fields.scopes.split(' ').filter(Boolean),
    first_seen_at: fields.first_seen_at,
    last_seen_at: fields.last_seen_at,
    // Absent from the records written before principals had one, as from those that have none.
    external_id: text('external_id'),
    revision: Number(fields.revision ?? 0),
  };
}

/**
 * The revision a record starts from: the time, so that a principal deleted and seen again never
 * has a revision an instance's cached copy of the deleted one has (the call's count compares them).
 */
function firstRevision(): string {
  return String(Date.now());
}

/** HGETALL's flat field/value list as an object. */
function pairsToObject(flat: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]] = flat[i + 1];
  return fields;
}

/** Principals in Redis: a record hash each (in the principal's slot), the ordered index. */
export class RedisPrincipalStore extends PrincipalStore {
  /** Records as last read, by id, until when they may be used (a key's are kept alike). */
  private readonly cache = new Map<string, { record: PrincipalRecord; until: number }>();

  constructor(private readonly redis: RedisDatabase) {
    super();
    redis.define(RECORD_SCRIPTS);
    redis.define(PRINCIPAL_SCRIPTS);
  }

  private get client() {
    return this.redis.client;
  }

  /**
   * The record, inserted when new (one script: two first calls on two instances make one record),
   * and its entry in the index. A cached copy serves the calls of the next minute: the call's count
   * compares its revision with the stored one (RedisCallCounter), as for a key. With `max`, a
   * record not yet stored is inserted only while the index holds fewer (the count and the insert
   * are two steps: instances making first sights at once may each pass it).
   */
  async ensurePrincipal(
    seen: NewPrincipalRecord,
    options: { fresh?: boolean; max?: number } = {},
  ): Promise<PrincipalRecord | undefined> {
    if (!options.fresh) {
      const kept = this.cache.get(seen.id);
      if (kept && kept.until > Date.now()) return kept.record;
    }
    let record: PrincipalRecord | undefined;
    if (options.max !== undefined) {
      record = decode(await redisCall(this.client.hgetall(RedisKeys.record(seen.id))));
      if (!record && (await this.countPrincipals()) >= options.max) return undefined;
    }
    record ??= await this.insert(seen);
    // In the index from the record's own first sight: the same member whoever adds it, so a
    // record whose instance stopped before its index entry is entered by the next read.
    await redisCall(this.client.zadd(RedisKeys.principalIndex, 0, indexMember(record)));
    this.keep(record);
    return record;
  }

  /** The record as stored once inserted, new or not (tisEnsureRecord never overwrites one). */
  private async insert(seen: NewPrincipalRecord): Promise<PrincipalRecord> {
    const stored = await redisCall(
      this.client.tisEnsureRecord(
        RedisKeys.record(seen.id),
        ...encode(seen),
        'revision',
        firstRevision(),
      ),
    );
    return decode(pairsToObject(stored)) as PrincipalRecord;
  }

  private keep(record: PrincipalRecord): void {
    if (this.cache.size >= MAX_CACHED_RECORDS) this.cache.clear();
    this.cache.set(record.id, {
      record: Object.freeze(record),
      until: Date.now() + CACHED_RECORD_MS,
    });
  }

  async findPrincipal(id: string): Promise<PrincipalRecord | undefined> {
    return decode(await redisCall(this.client.hgetall(RedisKeys.record(id))));
  }

  async listPrincipals(
    page: { after?: PrincipalPosition; limit?: number } = {},
  ): Promise<PrincipalRecord[]> {
    const min = page.after ? `(${indexMember(page.after)}` : '-';
    const members = await redisCall(
      page.limit === undefined
        ? this.client.zrangebylex(RedisKeys.principalIndex, min, '+')
        : this.client.zrangebylex(RedisKeys.principalIndex, min, '+', 'LIMIT', 0, page.limit),
    );
    const records = await Promise.all(members.map((m) => this.findPrincipal(idOfIndexMember(m))));
    return records.filter((r): r is PrincipalRecord => r !== undefined);
  }

  countPrincipals(): Promise<number> {
    return redisCall(this.client.zcard(RedisKeys.principalIndex));
  }

  async updatePrincipal(
    id: string,
    changes: PrincipalChanges,
  ): Promise<PrincipalRecord | undefined> {
    const args = updateArguments(changes, encodeField);
    await this.redis.durable((p) => p.tisUpdateRecord(RedisKeys.record(id), ...args));
    this.cache.delete(id);
    return this.findPrincipal(id);
  }

  async touchPrincipal(
    id: string,
    seen: { at: string; clientId: string | null; tokenPlan: string | null },
  ): Promise<void> {
    await redisCall(
      this.client.tisTouchRecord(
        RedisKeys.record(id),
        'last_seen_at',
        seen.at,
        'client_id',
        seen.clientId ?? '',
        'token_plan',
        seen.tokenPlan ?? '',
      ),
    );
  }

  /** The cached copy follows, so that the calls of its minute do not write the same scopes again. */
  async addPrincipalScopes(id: string, scopes: string[]): Promise<void> {
    await redisCall(this.client.tisAddScopes(RedisKeys.record(id), ...scopes));
    const kept = this.cache.get(id);
    if (kept) {
      const union = [...new Set([...(kept.record.scopes ?? []), ...scopes])].sort();
      this.cache.set(id, { ...kept, record: Object.freeze({ ...kept.record, scopes: union }) });
    }
  }

  async deletePrincipal(id: string): Promise<PrincipalRecord | undefined> {
    const taken = await this.redis.durable<string[]>((p) => p.tisTakeRecord(RedisKeys.record(id)));
    this.cache.delete(id);
    const record = decode(pairsToObject(taken));
    if (record) await redisCall(this.client.zrem(RedisKeys.principalIndex, indexMember(record)));
    return record;
  }

  async putPrincipal(record: PrincipalRecord): Promise<void> {
    const { revision: _revision, ...fields } = record;
    const args = updateArguments(fields, encodeField);
    await this.redis.durable((p) =>
      p.tisPutRecord(RedisKeys.record(record.id), firstRevision(), ...args),
    );
    await redisCall(this.client.zadd(RedisKeys.principalIndex, 0, indexMember(record)));
    this.cache.delete(record.id);
  }

  /**
   * The index a page at a time, each record's last sight read, and those that qualify deleted by
   * a script that checks them again (a call on another instance may have seen it meanwhile).
   */
  async *purgeIdlePrincipals(seenBefore: string): AsyncIterable<string[]> {
    let min = '-';
    for (;;) {
      const members = await redisCall(
        this.client.zrangebylex(RedisKeys.principalIndex, min, '+', 'LIMIT', 0, PURGE_PAGE),
      );
      if (!members.length) return;
      min = `(${members[members.length - 1]}`;
      const ids = members.map(idOfIndexMember);
      const seen = await Promise.all(
        ids.map((id) => redisCall(this.client.hget(RedisKeys.record(id), 'last_seen_at'))),
      );
      const purged: string[] = [];
      for (const [i, id] of ids.entries()) {
        if (seen[i] !== null) {
          if (seen[i] >= seenBefore) continue;
          const gone = await redisCall(this.client.tisPurgeIdle(RedisKeys.record(id), seenBefore));
          if (gone !== 1) continue;
          purged.push(id);
          this.cache.delete(id);
        }
        // Gone now, or an entry whose record was gone already: out of the index.
        await redisCall(this.client.zrem(RedisKeys.principalIndex, members[i]));
      }
      if (purged.length) yield purged;
    }
  }

  /**
   * A lock key (SET NX) renewed while `work` runs and deleted after; one that finds it held waits
   * until it is gone (its holder done, or stopped and the lock lapsed).
   */
  async exclusively<T>(name: string, work: () => Promise<T>): Promise<T | undefined> {
    const lock = RedisKeys.principalsLock(name);
    const token = randomUUID();
    const won = await redisCall(this.client.set(lock, token, 'PX', LOCK_MS, 'NX'));
    if (won !== 'OK') {
      while ((await redisCall(this.client.exists(lock))) === 1) {
        await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
      }
      return undefined;
    }
    const renew = setInterval(
      () =>
        void redisCall(this.client.tisHeldLock(lock, token, String(LOCK_MS))).catch(
          () => undefined,
        ),
      LOCK_MS / 3,
    ).unref();
    try {
      return await work();
    } finally {
      clearInterval(renew);
      await redisCall(this.client.tisHeldLock(lock, token)).catch(() => undefined);
    }
  }
}
