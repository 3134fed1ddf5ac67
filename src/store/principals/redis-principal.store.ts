import type { RedisDatabase } from '../redis/redis.database';
import { redisCall } from '../redis/redis.connection';
import { idOfIndexMember, indexMember, RedisKeys } from '../redis/redis.keys';
import { RECORD_SCRIPTS, updateArguments } from '../redis/record.scripts';
import {
  NewPrincipalRecord,
  PrincipalChanges,
  PrincipalPosition,
  PrincipalRecord,
  PrincipalStore,
} from './principal.store';

/** Records kept by `ensurePrincipal` before it starts over. */
const MAX_KEPT = 10_000;
/** A kept record is read again after this long (as a key's, see RedisKeyStore). */
const KEPT_RECORD_MS = 60_000;

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
  'first_seen_at',
  'last_seen_at',
] as const satisfies readonly (keyof PrincipalRecord)[];

function encodeField(field: string, value: unknown): string {
  if (field === 'enabled') return value ? '1' : '0';
  return String(value);
}

function encode(record: NewPrincipalRecord): string[] {
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
    first_seen_at: fields.first_seen_at,
    last_seen_at: fields.last_seen_at,
    revision: Number(fields.revision ?? 0),
  };
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
  private readonly kept = new Map<string, { record: PrincipalRecord; until: number }>();

  constructor(private readonly redis: RedisDatabase) {
    super();
    redis.define(RECORD_SCRIPTS);
  }

  private get client() {
    return this.redis.client;
  }

  /**
   * The record, inserted when new (one script: two first calls on two instances make one record),
   * and its entry in the index. A kept copy serves the calls of the next minute: the call's count
   * compares its revision with the stored one (RedisCallCounter), as for a key.
   */
  async ensurePrincipal(
    seen: NewPrincipalRecord,
    options: { fresh?: boolean } = {},
  ): Promise<PrincipalRecord> {
    if (!options.fresh) {
      const kept = this.kept.get(seen.id);
      if (kept && kept.until > Date.now()) return kept.record;
    }
    const stored = await redisCall(
      this.client.tisEnsureRecord(RedisKeys.record(seen.id), ...encode(seen)),
    );
    const record = decode(pairsToObject(stored)) as PrincipalRecord;
    // In the index from the record's own first sight: the same member whoever adds it, so a
    // record whose instance stopped before its index entry is entered by the next read.
    await redisCall(this.client.zadd(RedisKeys.principalIndex, 0, indexMember(record)));
    if (this.kept.size >= MAX_KEPT) this.kept.clear();
    this.kept.set(seen.id, { record: Object.freeze(record), until: Date.now() + KEPT_RECORD_MS });
    return record;
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

  async updatePrincipal(
    id: string,
    changes: PrincipalChanges,
  ): Promise<PrincipalRecord | undefined> {
    const args = updateArguments(changes, encodeField);
    await this.redis.durable((p) => p.tisUpdateRecord(RedisKeys.record(id), ...args));
    this.kept.delete(id);
    return this.findPrincipal(id);
  }

  async touchPrincipal(id: string, at: string, tokenPlan: string | null): Promise<void> {
    await redisCall(
      this.client.tisTouchRecord(
        RedisKeys.record(id),
        'last_seen_at',
        at,
        'token_plan',
        tokenPlan ?? '',
      ),
    );
  }
}
