import { redisCall, type RedisClient } from '../kernel/store/redis/redis.connection';
import { idOfIndexMember, RedisKeys } from '../kernel/store/redis/redis.keys';

/** The fields without which a key's record cannot be used. */
const REQUIRED_KEY_FIELDS = ['id', 'name', 'prefix', 'hash', 'scopes', 'plan', 'created_at'];
/** Keys checked in one page of pipelined reads. */
const PAGE = 1_000;
/**
 * Keys checked at most, the newest (a start-up that died, a rotation cut short: the damage this
 * finds is made when a key is written): doctor's checks have 5 s, and a million keys take longer.
 */
export const MAX_CHECKED_KEYS = 20_000;

/**
 * Every key of the index, the newest `MAX_CHECKED_KEYS`, has a record that agrees and its
 * current secret has a lookup: one problem a damaged key.
 */
export async function checkKeyLayout(client: RedisClient): Promise<string[]> {
  const members = await redisCall(client.zrange(RedisKeys.keyIndex, -MAX_CHECKED_KEYS, -1));
  const problems: string[] = [];
  for (let at = 0; at < members.length; at += PAGE) {
    const ids = members.slice(at, at + PAGE).map(idOfIndexMember);
    const found = await Promise.all(
      ids.map(async (id) => {
        const fields = await redisCall(client.hgetall(RedisKeys.record(id)));
        const lookup = fields.hash
          ? await redisCall(client.get(RedisKeys.hashLookup(fields.hash)))
          : null;
        return { id, fields, lookup };
      }),
    );
    for (const { id, fields, lookup } of found) {
      const missing = REQUIRED_KEY_FIELDS.filter((f) => !fields[f]);
      if (!fields.id) problems.push(`The key index names ${id}, which has no record`);
      else if (missing.length) problems.push(`Key ${id}: its record lacks ${missing.join(', ')}`);
      else if (lookup !== id)
        problems.push(`Key ${id}: no lookup leads from its secret's hash to it`);
    }
  }
  return problems;
}
