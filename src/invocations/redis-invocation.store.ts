import { redisCall } from '../kernel/store/redis/redis.connection';
import type { RedisDatabase } from '../kernel/store/redis/redis.database';
import { idOfIndexMember, indexMember, RedisKeys } from '../kernel/store/redis/redis.keys';
import {
  ACTIVE_STATUSES,
  InvocationChanges,
  InvocationPosition,
  InvocationRecord,
  InvocationStatus,
  InvocationStore,
} from './invocation.store';
import { INVOCATION_SCRIPTS } from './redis-invocation.scripts';

/** Fields held as JSON in the record hash (the others are text; absent is null). */
const JSON_FIELDS = new Set(['progress', 'result', 'error', 'expires_ms', 'charge_entry']);
/** A page of a caller's list reads this many index entries at a time (a status filter skips some). */
const LIST_BATCH = 100;

/**
 * A new record's fields: only those that hold something (a field absent reads as null, false or
 * 0), so that a record holds no empty fields of the states it has not reached.
 */
function encodeNew(record: InvocationRecord): string[] {
  const held: Partial<InvocationRecord> = {};
  for (const [name, value] of Object.entries(record) as [keyof InvocationRecord, unknown][]) {
    if (value !== null && value !== false && !(name === 'charged_credits' && value === 0)) {
      (held as Record<string, unknown>)[name] = value;
    }
  }
  return encode(held);
}

function encode(fields: Partial<InvocationRecord>): string[] {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (value === null) pairs.push(name, '');
    else if (name === 'cancel_requested') pairs.push(name, value ? '1' : '0');
    else if (JSON_FIELDS.has(name) || typeof value === 'object') {
      pairs.push(name, JSON.stringify(value));
    } else pairs.push(name, `${value as string | number}`);
  }
  return pairs;
}

/** A script's HGETALL reply (a flat field/value list) as the record. */
function decodeFlat(flat: string[]): InvocationRecord | undefined {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]] = flat[i + 1];
  return decode(fields);
}

function decode(fields: Record<string, string>): InvocationRecord | undefined {
  if (!fields.id) return undefined;
  const json = (name: string) => (fields[name] ? (JSON.parse(fields[name]) as unknown) : null);
  const text = (name: string) => fields[name] || null;
  return {
    id: fields.id,
    caller_id: fields.caller_id,
    tool: fields.tool,
    status: fields.status as InvocationStatus,
    progress: json('progress') as InvocationRecord['progress'],
    result: json('result'),
    error: json('error') as InvocationRecord['error'],
    error_kind: text('error_kind') as InvocationRecord['error_kind'],
    created_at: fields.created_at,
    started_at: text('started_at'),
    finished_at: text('finished_at'),
    instance: fields.instance,
    cancel_requested: fields.cancel_requested === '1',
    expires_ms: json('expires_ms') as number | null,
    charged_day: text('charged_day'),
    charged_credits: Number(fields.charged_credits ?? 0),
    idempotency_key: text('idempotency_key'),
    charge_entry: json('charge_entry') as InvocationRecord['charge_entry'],
  };
}

const isActive = (record: InvocationRecord | undefined) =>
  record !== undefined && ACTIVE_STATUSES.includes(record.status);

/**
 * Long-running calls in Redis: a record hash each (`{<invocation id>}:invocation`, a slot of its
 * own, expiring with the call), each caller's index (`{<caller id>}:invocations`, in the caller's
 * slot), the calls still running (`{invocations}:active`, id -> instance), each instance's lease
 * (`{instance:<id>}`, a key that lives while the instance renews it) and a channel announcing
 * cancels to every instance.
 */
export class RedisInvocationStore extends InvocationStore {
  private readonly channel: string;
  private readonly listeners: ((id: string) => void)[] = [];
  /** Running entries whose record the last sweep did not find. */
  private missing = new Set<string>();

  constructor(private readonly redis: RedisDatabase) {
    super();
    this.channel = `${redis.settings.redisKeyPrefix}invocations:cancel`;
    redis.define({
      ...INVOCATION_SCRIPTS,
    });
    redis.subscriber.on('message', (channel: string, id: string) => {
      if (channel === this.channel) for (const listener of this.listeners) listener(id);
    });
    void redis.subscriber.subscribe(this.channel).catch(() => undefined);
  }

  private get client() {
    return this.redis.client;
  }

  /**
   * The call's entry among the running calls first, then, at once, its record and its two lists.
   * On a Cluster they live on different nodes, not written in one step:
   * - a process killed between them must not leave a record the sweep cannot find (`orphans` reads
   *   the running entry), which would stay queued, unrefunded, for ever; the sweep lists again
   *   what it settles (`listed`);
   * - a list or running entry may be read a moment before its record exists: `list` and `orphans`
   *   forget an entry without a record only once it cannot be that.
   */
  async create(record: InvocationRecord): Promise<void> {
    await redisCall(this.client.hset(RedisKeys.activeInvocations, record.id, record.instance));
    await Promise.all([
      redisCall(this.client.hset(RedisKeys.invocation(record.id), ...encodeNew(record))),
      this.listed(record),
    ]);
  }

  async get(id: string): Promise<InvocationRecord | undefined> {
    return decode(await redisCall(this.client.hgetall(RedisKeys.invocation(id))));
  }

  list(
    callerId: string,
    page: { status?: InvocationStatus; after?: InvocationPosition; limit: number },
  ): Promise<InvocationRecord[]> {
    return this.listFrom(RedisKeys.invocationsOf(callerId), page);
  }

  listAll(page: {
    status?: InvocationStatus;
    after?: InvocationPosition;
    limit: number;
  }): Promise<InvocationRecord[]> {
    return this.listFrom(RedisKeys.allInvocations, page);
  }

  /** A page of an index, newest first; entries whose record expired leave the index as read. */
  private async listFrom(
    index: string,
    page: { status?: InvocationStatus; after?: InvocationPosition; limit: number },
  ): Promise<InvocationRecord[]> {
    const found: InvocationRecord[] = [];
    // Unfiltered, a page reads its own records (a record gone reads on); a status skips some.
    const batch = page.status ? LIST_BATCH : Math.min(LIST_BATCH, page.limit);
    let max = page.after ? `(${indexMember(page.after)}` : '+';
    for (;;) {
      const members = await redisCall(
        this.client.zrevrangebylex(index, max, '-', 'LIMIT', 0, batch),
      );
      const records = await Promise.all(members.map((m) => this.get(idOfIndexMember(m))));
      // An entry older than a minute without its record: the call expired (a younger one may be
      // a record still on its way).
      const old = new Date(Date.now() - 60_000).toISOString();
      const gone = members.filter((m, i) => !records[i] && m < old);
      if (gone.length) await redisCall(this.client.zrem(index, ...gone));
      for (const record of records) {
        if (!record || (page.status && record.status !== page.status)) continue;
        found.push(record);
        if (found.length >= page.limit) return found;
      }
      if (members.length < batch) return found;
      max = `(${members[members.length - 1]}`;
    }
  }

  async update(
    id: string,
    changes: InvocationChanges,
    from: readonly InvocationStatus[],
  ): Promise<InvocationRecord | undefined> {
    const { expires_ms, ...fields } = changes;
    // A result just written is not read back (it may be a megabyte of JSON).
    const setsResult = changes.result !== undefined;
    const stored = await redisCall(
      this.client.tisMoveInvocation(
        RedisKeys.invocation(id),
        from.join('|'),
        expires_ms === undefined || expires_ms === null ? '' : String(expires_ms),
        setsResult ? 'result' : '',
        ...encode({ ...fields, ...(expires_ms === undefined ? {} : { expires_ms }) }),
      ),
    );
    const found = decodeFlat(stored);
    const record = found && setsResult ? { ...found, result: changes.result } : found;
    if (record && record.status !== 'queued' && record.status !== 'running') {
      await redisCall(this.client.hdel(RedisKeys.activeInvocations, id));
    }
    return record;
  }

  async requestCancel(id: string): Promise<void> {
    await redisCall(
      this.client.tisCancelInvocation(RedisKeys.invocation(id), 'queued|running', this.channel, id),
    );
  }

  async cancelsAmong(ids: readonly string[]): Promise<string[]> {
    const marks = await Promise.all(
      ids.map((id) => redisCall(this.client.hget(RedisKeys.invocation(id), 'cancel_requested'))),
    );
    return ids.filter((_, i) => marks[i] === '1');
  }

  /** Every cancel is published on the channel: the marks are read at each sweep only. */
  readonly announcesCancels = true;

  onCancel(listener: (id: string) => void): void {
    this.listeners.push(listener);
  }

  async renew(instance: string, untilMs: number): Promise<void> {
    await redisCall(this.client.set(RedisKeys.instanceLease(instance), '1', 'PXAT', untilMs));
  }

  async alive(instance: string): Promise<boolean> {
    return (await redisCall(this.client.exists(RedisKeys.instanceLease(instance)))) === 1;
  }

  /** The running calls whose instance's lease is gone (each instance asked once). */
  async orphans(_nowMs: number, createdBefore: string, limit: number): Promise<InvocationRecord[]> {
    const active = await redisCall(this.client.hgetall(RedisKeys.activeInvocations));
    const instances = [...new Set(Object.values(active))];
    const living = await Promise.all(instances.map((instance) => this.alive(instance)));
    const dead = new Set(instances.filter((_, i) => !living[i]));
    const ids = Object.keys(active).filter((id) => dead.has(active[id]));
    const found: InvocationRecord[] = [];
    const missing: string[] = [];
    for (let at = 0; at < ids.length && found.length < limit; at += limit) {
      const slice = ids.slice(at, at + limit);
      const records = await Promise.all(slice.map((id) => this.get(id)));
      // Over (the end's HDEL did not happen), or gone at two sweeps in a row (at the first, its
      // record may have been on its way): no longer active.
      const stale = slice.filter((id, i) =>
        records[i] ? !isActive(records[i]) : this.missing.has(id),
      );
      missing.push(...slice.filter((_, i) => !records[i]));
      if (stale.length) await redisCall(this.client.hdel(RedisKeys.activeInvocations, ...stale));
      for (const r of records) {
        if (r && isActive(r) && r.created_at < createdBefore) found.push(r);
      }
    }
    this.missing = new Set(missing);
    const orphans = found.slice(0, limit);
    await Promise.all(orphans.map((record) => this.listed(record)));
    return orphans;
  }

  /**
   * A record's members of its caller's index and of every call's: written by `create`, and again
   * for each call the sweep takes, which a process killed in the middle of `create` may have left
   * out of them.
   */
  private async listed(record: InvocationRecord): Promise<void> {
    await Promise.all([
      redisCall(
        this.client.zadd(RedisKeys.invocationsOf(record.caller_id), 0, indexMember(record)),
      ),
      redisCall(this.client.zadd(RedisKeys.allInvocations, 0, indexMember(record))),
    ]);
  }

  /**
   * Records expire by themselves (PEXPIREAT when a call ends); a caller's index is pruned as read.
   * The index of every call is walked here, a batch at a time, and rid of the calls whose record
   * is gone, so that it holds about a day of calls whether or not anyone reads it.
   */
  async purge(): Promise<number> {
    let pruned = 0;
    for (let min = '-'; ;) {
      const members = await redisCall(
        this.client.zrangebylex(RedisKeys.allInvocations, min, '+', 'LIMIT', 0, LIST_BATCH),
      );
      const present = await Promise.all(
        members.map((m) => redisCall(this.client.exists(RedisKeys.invocation(idOfIndexMember(m))))),
      );
      const gone = members.filter((_, i) => present[i] === 0);
      if (gone.length) await redisCall(this.client.zrem(RedisKeys.allInvocations, ...gone));
      pruned += gone.length;
      if (members.length < LIST_BATCH) return pruned;
      min = `(${members[members.length - 1]}`;
    }
  }
}
