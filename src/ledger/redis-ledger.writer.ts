import { Cluster } from 'ioredis';
import { RedisClient, redisCall } from '../kernel/store/redis/redis.connection';
import { LedgerKeys, type LedgerWrite, type NewLedgerEntry } from './ledger-entry';

/** A day's sums (the subject's and the index's) outlive the day by a week, then Redis forgets them. */
export const LEDGER_DAY_KEEP_SECONDS = 8 * 86_400;

/**
 * What writes the ledger on Redis: a Lua function the counting step's script calls (the usage
 * store's and the call counter's), so that an entry, its day sum and the counters it counts are
 * one atomic step. `writeLedger(keys, k, args, a)`: KEYS from `keys[k]`, ledgerWriteKeys (the
 * subject's entries, their ids, its day sum, then the time index and the day's subjects, or the
 * ids again where those are written after: a Cluster); ARGV from `args[a]`, ledgerWriteArguments
 * (the entry's id, '' for none; its JSON; its credits; its index member, '' when written after;
 * its subject). Writes the entry, adds it to the subject's day sum and, with its member, indexes
 * it by time and counts it among the day's indexed entries of its subject.
 */
export const LEDGER_WRITE_LUA = `
local function writeLedger(keys, k, args, a)
  local id = args[a]
  if id == '' then return end
  redis.call('HSET', keys[k], id, args[a + 1])
  redis.call('ZADD', keys[k + 1], 0, id)
  redis.call('HINCRBY', keys[k + 2], 'credits', args[a + 2])
  if redis.call('HINCRBY', keys[k + 2], 'entries', 1) == 1 then
    redis.call('EXPIRE', keys[k + 2], ${LEDGER_DAY_KEEP_SECONDS})
  end
  if args[a + 3] ~= '' then
    redis.call('ZADD', keys[k + 3], 0, args[a + 3])
    redis.call('HINCRBY', keys[k + 4], args[a + 4], 1)
    if redis.call('TTL', keys[k + 4]) < 0 then
      redis.call('EXPIRE', keys[k + 4], ${LEDGER_DAY_KEEP_SECONDS})
    end
  end
end`;

/** How many KEYS and ARGV one write takes (ledgerWriteKeys, ledgerWriteArguments). */
export const LEDGER_WRITE_KEYS = 5;
export const LEDGER_WRITE_ARGUMENTS = 5;

/**
 * The writer's KEYS for a subject's entry counted on `day`; `indexed`: the script writes the time
 * index too (one Redis or Sentinel's master; never a Cluster, where it is another slot).
 */
export function ledgerWriteKeys(subjectId: string, day: string, indexed: boolean): string[] {
  const ids = LedgerKeys.ids(subjectId);
  return [
    LedgerKeys.entries(subjectId),
    ids,
    LedgerKeys.day(subjectId, day),
    indexed ? LedgerKeys.index : ids,
    indexed ? LedgerKeys.subjects(day) : ids,
  ];
}

const NO_ENTRY: readonly string[] = ['', '', '', '', ''];

/** The writer's ARGV for an entry (none: nothing written). */
export function ledgerWriteArguments(
  entry: NewLedgerEntry | null | undefined,
  indexed: boolean,
): string[] {
  if (!entry) return [...NO_ENTRY];
  return [
    entry.id,
    JSON.stringify(entry),
    String(entry.credits),
    indexed ? LedgerKeys.indexMember(entry) : '',
    entry.subject.id,
  ];
}

/**
 * The time index of entries just written on a Cluster (LedgerKeys.index and the days' subjects, a
 * slot of their own), in one transaction right after the step that wrote them; doctor's ledger
 * check finds what a process stopped between the two left out. Elsewhere the script wrote them:
 * nothing to do.
 */
export async function indexEntries(redis: RedisClient, writes: LedgerWrite[]): Promise<void> {
  if (!writes.length || !(redis instanceof Cluster)) return;
  const transaction = redis.multi();
  transaction.zadd(
    LedgerKeys.index,
    ...writes.flatMap(({ entry }) => [0, LedgerKeys.indexMember(entry)]),
  );
  const days = new Set<string>();
  for (const { entry, day } of writes) {
    transaction.hincrby(LedgerKeys.subjects(day), entry.subject.id, 1);
    days.add(day);
  }
  for (const day of days) transaction.expire(LedgerKeys.subjects(day), LEDGER_DAY_KEEP_SECONDS);
  await redisCall(transaction.exec());
}
