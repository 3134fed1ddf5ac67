import { redisCall } from '../kernel/store/redis/redis.connection';
import type { RedisDatabase } from '../kernel/store/redis/redis.database';
import { ledgerIdFrom, LedgerEntry, LedgerKeys, NewLedgerEntry, withTime } from './ledger-entry';
import { LedgerDaySums, LedgerQuery, LedgerStore, LedgerSums } from './ledger.store';
import { LEDGER_DAY_KEEP_SECONDS } from './redis-ledger.writer';

/** Ids read at once from an index. */
const CHUNK = 500;
/** Entries a purge deletes in one pipelined round (its replies are read between rounds). */
const PURGE_BATCH = 100;

/** Whether an entry passes a query's filters (the index gives the range by time). */
function passes(entry: LedgerEntry, query: LedgerQuery): boolean {
  return (
    (query.subjectId === undefined || entry.subject.id === query.subjectId) &&
    (query.externalId === undefined || entry.subject.external_id === query.externalId) &&
    (query.runId === undefined || entry.run_id === query.runId) &&
    (query.tool === undefined || entry.tool === query.tool)
  );
}

/**
 * The ledger in Redis: each entry in its subject's slot (written by the script that counts it),
 * found by time through the subject's id set or, across subjects, the time index.
 */
export class RedisLedgerStore extends LedgerStore {
  constructor(private readonly redis: RedisDatabase) {
    super();
  }

  /**
   * Reads the range's ids a chunk at a time (the subject's set, else the time index), then their
   * entries from each subject's hash, until `limit` pass the filters.
   */
  async page(query: LedgerQuery, limit: number): Promise<LedgerEntry[]> {
    const found: LedgerEntry[] = [];
    // The index gives the range (and the subject's set, the subject): without another filter a
    // page reads its own entries (one gone reads on); a filter skips some.
    const filtered = [query.externalId, query.runId, query.tool].some((f) => f !== undefined);
    const chunk = filtered ? CHUNK : Math.min(CHUNK, limit);
    let after = query.after;
    for (;;) {
      const members = await this.range(query, after, chunk);
      const entries = await this.entriesOf(members, query.subjectId);
      for (const entry of entries) {
        if (entry && passes(entry, query)) found.push(entry);
        if (found.length === limit) return found;
      }
      if (members.length < chunk) return found;
      after = members[members.length - 1].split(' ')[0];
    }
  }

  /**
   * `count` ids of the range after `after`: `<id>` of a subject's set, `<id> <subject>` of the
   * index.
   */
  private range(query: LedgerQuery, after: string | undefined, count: number): Promise<string[]> {
    const key = query.subjectId === undefined ? LedgerKeys.index : LedgerKeys.ids(query.subjectId);
    // A member of the index is `<id> <subject>`: after `<id>` means past every member it starts.
    const start = after === undefined ? `[${ledgerIdFrom(query.fromMs)}` : `(${after}~`;
    return redisCall(
      this.redis.client.zrangebylex(key, start, `(${ledgerIdFrom(query.toMs)}`, 'LIMIT', 0, count),
    );
  }

  /**
   * Each id's entry from its subject's hash: one HMGET a subject (each in its slot), in the ids'
   * order. A stream of a range reads a chunk of ids at a time this way, few commands a chunk.
   */
  private async entriesOf(
    members: string[],
    subjectId: string | undefined,
  ): Promise<(LedgerEntry | undefined)[]> {
    const bySubject = new Map<string, string[]>();
    const places: [subject: string, at: number][] = members.map((member) => {
      const [id, subject] = subjectId === undefined ? member.split(' ') : [member, subjectId];
      const ids = bySubject.get(subject) ?? [];
      bySubject.set(subject, ids);
      return [subject, ids.push(id) - 1];
    });
    const replies = new Map(
      await Promise.all(
        [...bySubject].map(
          async ([subject, ids]) =>
            [
              subject,
              await redisCall(this.redis.client.hmget(LedgerKeys.entries(subject), ...ids)),
            ] as const,
        ),
      ),
    );
    return places.map(([subject, at]) => {
      const json = replies.get(subject)?.[at];
      return typeof json === 'string' ? withTime(JSON.parse(json) as NewLedgerEntry) : undefined;
    });
  }

  async purge(beforeMs: number, limit: number): Promise<number> {
    const { client } = this.redis;
    const members = await redisCall(
      client.zrangebylex(LedgerKeys.index, '-', `(${ledgerIdFrom(beforeMs)}`, 'LIMIT', 0, limit),
    );
    // Auto-pipelined: each subject's hash and set (their slots), then the index; PURGE_BATCH
    // entries at a time, so that no reply of hundreds of commands holds the event loop at once.
    for (let at = 0; at < members.length; at += PURGE_BATCH) {
      const batch = members.slice(at, at + PURGE_BATCH);
      await Promise.all(
        batch.map((member) => {
          const [id, subject] = member.split(' ');
          return Promise.all([
            redisCall(client.hdel(LedgerKeys.entries(subject), id)),
            redisCall(client.zrem(LedgerKeys.ids(subject), id)),
          ]);
        }),
      );
      await redisCall(client.zrem(LedgerKeys.index, ...batch));
    }
    return members.length;
  }

  async sums(subjectId: string, fromMs: number, toMs: number): Promise<LedgerSums> {
    const sums = { charges: 0, credits: 0 };
    for await (const entry of this.stream({ fromMs, toMs, subjectId })) {
      sums.credits += entry.credits;
      if (entry.kind === 'charge') sums.charges += 1;
    }
    return sums;
  }

  async subjects(fromMs: number, toMs: number): Promise<string[]> {
    const subjects = new Set<string>();
    let start = `[${ledgerIdFrom(fromMs)}`;
    for (;;) {
      const members = await redisCall(
        this.redis.client.zrangebylex(
          LedgerKeys.index,
          start,
          `(${ledgerIdFrom(toMs)}`,
          'LIMIT',
          0,
          CHUNK,
        ),
      );
      for (const member of members) subjects.add(member.split(' ')[1]);
      if (members.length < CHUNK) return [...subjects];
      start = `(${members[members.length - 1]}`;
    }
  }

  async unindexed(
    subjectId: string,
    fromMs: number,
    toMs: number,
    apply: boolean,
  ): Promise<number> {
    const { client } = this.redis;
    let missing = 0;
    let start = `[${ledgerIdFrom(fromMs)}`;
    for (;;) {
      const ids = await redisCall(
        client.zrangebylex(
          LedgerKeys.ids(subjectId),
          start,
          `(${ledgerIdFrom(toMs)}`,
          'LIMIT',
          0,
          CHUNK,
        ),
      );
      const members = ids.map((id) => `${id} ${subjectId}`);
      const scores = await Promise.all(
        members.map((member) => redisCall(client.zscore(LedgerKeys.index, member))),
      );
      const absent = members.filter((_, i) => scores[i] === null);
      missing += absent.length;
      if (apply && absent.length) {
        await redisCall(client.zadd(LedgerKeys.index, ...absent.flatMap((member) => [0, member])));
      }
      if (ids.length < CHUNK) return missing;
      start = `(${ids[ids.length - 1]}`;
    }
  }

  /** The days' subjects hashes, read a slice (HSCAN) at a time. */
  async activeSubjects(
    days: string[],
    limit: number,
  ): Promise<{ subjects: string[]; total: number }> {
    const all = new Set<string>();
    for (const day of days) {
      let cursor = '0';
      do {
        const [next, fields] = await redisCall(
          this.redis.client.hscan(LedgerKeys.subjects(day), cursor, 'COUNT', CHUNK),
        );
        for (let i = 0; i < fields.length; i += 2) all.add(fields[i]);
        cursor = next;
      } while (cursor !== '0');
    }
    return { subjects: [...all].sort().slice(0, limit), total: all.size };
  }

  /** One HMGET of the subject's day sum and one HGET of the day's index count, a day. */
  async daySums(subjectId: string, days: string[]): Promise<LedgerDaySums[]> {
    const { client } = this.redis;
    return Promise.all(
      days.map(async (day) => {
        const [[credits, entries], indexed] = await Promise.all([
          redisCall(client.hmget(LedgerKeys.day(subjectId, day), 'credits', 'entries')),
          redisCall(client.hget(LedgerKeys.subjects(day), subjectId)),
        ]);
        const counted = Number(entries ?? 0);
        return {
          day,
          credits: Number(credits ?? 0),
          entries: counted,
          unindexed: Math.max(0, counted - Number(indexed ?? 0)),
        };
      }),
    );
  }

  /**
   * The subject's ids from the first day on (a refund counted on a day is made after it), a chunk
   * at a time, those absent from the index indexed; then the days' index counts are its entries'.
   */
  async indexMissing(subjectId: string, days: string[]): Promise<number> {
    const first = days.reduce((a, b) => (a < b ? a : b));
    const missing = await this.unindexed(
      subjectId,
      Date.parse(`${first}T00:00:00Z`),
      2 ** 48 - 1,
      true,
    );
    const sums = await this.daySums(subjectId, days);
    const { client } = this.redis;
    await Promise.all(
      sums.map(async ({ day, entries }) => {
        await redisCall(client.hset(LedgerKeys.subjects(day), subjectId, entries));
        await redisCall(client.expire(LedgerKeys.subjects(day), LEDGER_DAY_KEEP_SECONDS));
      }),
    );
    return missing;
  }
}
