import type { Result } from 'ioredis';
import { redisCall } from '../kernel/store/redis/redis.connection';
import type { RedisDatabase, RedisScript } from '../kernel/store/redis/redis.database';
import { RedisKeys } from '../kernel/store/redis/redis.keys';
import {
  AttemptOutcome,
  DisabledReason,
  EndpointChanges,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookStore,
} from './webhook.store';

/** Deliveries a purge script looks at in one run (the purge runs it until the lists are done). */
const PURGE_BATCH = '500';
/** A marker whose expiry Redis's clock says is past is still kept this long (housekeeping). */
const MARK_KEPT_MS = String(24 * 60 * 60 * 1000);

const { webhookDue: DUE, webhookDeliveryBase: DELIVERY, webhookEndpoints: ENDPOINTS } = RedisKeys;

/**
 * KEYS are prefixed by the client's keyPrefix; ARGV are not. A key-name base passed as a key
 * (`{webhooks}:dlv:`, `{webhooks}:of:`) is completed in the script by an id: every key a script
 * touches has the hash tag `{webhooks}`, one Cluster slot.
 */
const WEBHOOK_SCRIPTS = {
  /** KEYS: the endpoint, the endpoints. ARGV: the most, its created_at (ms), its id, its fields. */
  tisCreateWebhookEndpoint: {
    numberOfKeys: 2,
    lua: `
      if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[1]) then return 0 end
      if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('ERR id taken') end
      redis.call('HSET', KEYS[1], unpack(ARGV, 4))
      redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
      return 1`,
  },
  /**
   * KEYS: an endpoint or a delivery, the due set. ARGV: its id, a field and the value it must have
   * ('' for no condition), when due (ms; '-' for never; '' leaves it), fields to set. The record
   * after, or {} when there is none or the condition does not hold.
   */
  tisChangeWebhookRecord: {
    numberOfKeys: 2,
    lua: `
      if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
      if ARGV[2] ~= '' and redis.call('HGET', KEYS[1], ARGV[2]) ~= ARGV[3] then return {} end
      if #ARGV > 4 then redis.call('HSET', KEYS[1], unpack(ARGV, 5)) end
      if ARGV[4] == '-' then redis.call('ZREM', KEYS[2], ARGV[1])
      elseif ARGV[4] ~= '' then redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1]) end
      return redis.call('HGETALL', KEYS[1])`,
  },
  /**
   * KEYS: the endpoint, the endpoints, its delivery list, the due set, the delivery base. ARGV: its
   * id. Removes it and its deliveries: 1, or 0 when there was no endpoint.
   */
  tisDeleteWebhookEndpoint: {
    numberOfKeys: 5,
    lua: `
      local existed = redis.call('DEL', KEYS[1])
      redis.call('ZREM', KEYS[2], ARGV[1])
      for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
        redis.call('DEL', KEYS[5] .. id); redis.call('ZREM', KEYS[4], id)
      end
      redis.call('DEL', KEYS[3])
      return existed`,
  },
  /**
   * KEYS: the due set, the delivery base, the delivery-list base. ARGV, per delivery: its id, its
   * endpoint's id, when due (ms, '-' for never), the count n of the field/value strings that follow.
   */
  tisEnqueueWebhookDeliveries: {
    numberOfKeys: 3,
    lua: `
      local i = 1
      while ARGV[i] do
        local id, n = ARGV[i], tonumber(ARGV[i + 3])
        redis.call('HSET', KEYS[2] .. id, unpack(ARGV, i + 4, i + 3 + n))
        redis.call('ZADD', KEYS[3] .. ARGV[i + 1], 0, id)
        if ARGV[i + 2] ~= '-' then redis.call('ZADD', KEYS[1], ARGV[i + 2], id) end
        i = i + 4 + n
      end
      return 0`,
  },
  /**
   * KEYS: the due set, the delivery base. ARGV: now, the lease's end (ms), the most. The records
   * (HGETALL each) of the deliveries due at now, earliest first, each due again at the lease's end.
   */
  tisClaimWebhookDeliveries: {
    numberOfKeys: 2,
    lua: `
      local found = {}
      for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])) do
        local record = redis.call('HGETALL', KEYS[2] .. id)
        if #record == 0 then redis.call('ZREM', KEYS[1], id)
        else redis.call('ZADD', KEYS[1], ARGV[2], id); found[#found + 1] = record end
      end
      return found`,
  },
  /**
   * KEYS: an endpoint's delivery list, the due set, the delivery base. ARGV: a time (JSON), where to
   * start (ZRANGEBYLEX), how many to look at. Forgets those stored before then and not pending,
   * oldest first, up to the first stored since (ids follow the time): how many, where to go on.
   */
  tisPurgeWebhookDeliveries: {
    numberOfKeys: 3,
    lua: `
      local ids = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[2], '+', 'LIMIT', 0, ARGV[3])
      local removed = 0
      for _, id in ipairs(ids) do
        local held = redis.call('HMGET', KEYS[3] .. id, 'at', 'status')
        if not held[1] then redis.call('ZREM', KEYS[1], id)
        elseif held[1] >= ARGV[1] then return {removed, ''}
        elseif held[2] ~= '"pending"' then
          redis.call('DEL', KEYS[3] .. id); redis.call('ZREM', KEYS[1], id)
          redis.call('ZREM', KEYS[2], id); removed = removed + 1
        end
      end
      if #ids < tonumber(ARGV[3]) then return {removed, ''} end
      return {removed, '(' .. ids[#ids]}`,
  },
  /**
   * KEYS: the marker. ARGV: now (ms, the service's clock), its expiry, MARK_KEPT_MS. Set to its
   * expiry (1) unless it holds one after now (0). Its TTL (Redis's clock) is housekeeping only.
   */
  tisMarkWebhookOnce: {
    numberOfKeys: 1,
    lua: `
      local held = redis.call('GET', KEYS[1])
      if held and tonumber(held) > tonumber(ARGV[1]) then return 0 end
      local time = redis.call('TIME')
      if tonumber(ARGV[2]) > tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) then
        redis.call('SET', KEYS[1], ARGV[2], 'PXAT', ARGV[2])
      else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
      return 1`,
  },
} as const satisfies Record<string, RedisScript>;

declare module 'ioredis' {
  /** KEYS, then ARGV, as each script's comment in WEBHOOK_SCRIPTS says. */
  interface RedisCommander<Context> {
    tisCreateWebhookEndpoint(...keysAndArgs: string[]): Result<number, Context>;
    tisChangeWebhookRecord(...keysAndArgs: string[]): Result<string[], Context>;
    tisDeleteWebhookEndpoint(...keysAndArgs: string[]): Result<number, Context>;
    tisEnqueueWebhookDeliveries(...keysAndArgs: string[]): Result<number, Context>;
    tisClaimWebhookDeliveries(...keysAndArgs: string[]): Result<string[][], Context>;
    tisPurgeWebhookDeliveries(...keysAndArgs: string[]): Result<[number, string], Context>;
    tisMarkWebhookOnce(...keysAndArgs: string[]): Result<number, Context>;
  }
}

const ms = (iso: string) => String(Date.parse(iso));

/** A record's (or a change's) fields as stored: field, value as JSON, ... */
const encode = (record: object): string[] =>
  Object.entries(record).flatMap(([f, v]) => (v === undefined ? [] : [f, JSON.stringify(v)]));

/** A record as a script's HGETALL answers it (a flat field/value list); none: undefined. */
function decode<T>(flat: string[]): T | undefined {
  const fields: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]] = JSON.parse(flat[i + 1]);
  return fields.id === undefined ? undefined : (fields as T);
}

const read = (fields: Record<string, string>) => Object.entries(fields).flat();

const found = <T>(items: (T | undefined)[]): T[] => items.filter((i): i is T => i !== undefined);

/** When a delivery is due (ms), '-' when it is not (no longer pending). */
const dueScore = (d: Pick<WebhookDelivery, 'status' | 'next_attempt_at'>) =>
  d.status === 'pending' && d.next_attempt_at !== null ? ms(d.next_attempt_at) : '-';

/**
 * Endpoints and the outbox in Redis, under the hash tag `{webhooks}` (redis.keys.ts). Records are
 * hashes of JSON values (`"pending"`, `null`, `3`, `["*"]`): a change is an HSET of its fields,
 * atomic without cjson. The due set holds the pending deliveries, scored by when due (ms); a claim
 * moves one to its lease's end. Endpoint writes, enqueues and retries are durable under
 * REDIS_WAIT_REPLICAS; claims and attempts are not (a lost one is sent again).
 */
export class RedisWebhookStore extends WebhookStore {
  constructor(private readonly redis: RedisDatabase) {
    super();
    redis.define(WEBHOOK_SCRIPTS);
  }

  private get client() {
    return this.redis.client;
  }

  async createEndpoint(endpoint: WebhookEndpoint, max: number): Promise<boolean> {
    const { id, created_at } = endpoint;
    const keys = [RedisKeys.webhookEndpoint(id), ENDPOINTS];
    const created = await this.redis.durable<number>((p) =>
      p.tisCreateWebhookEndpoint(...keys, String(max), ms(created_at), id, ...encode(endpoint)),
    );
    return created === 1;
  }

  async getEndpoint(id: string): Promise<WebhookEndpoint | undefined> {
    return decode(read(await redisCall(this.client.hgetall(RedisKeys.webhookEndpoint(id)))));
  }

  async listEndpoints(): Promise<WebhookEndpoint[]> {
    const ids = await redisCall(this.client.zrange(ENDPOINTS, 0, -1));
    return found(await Promise.all(ids.map((id) => this.getEndpoint(id))));
  }

  async updateEndpoint(id: string, changes: EndpointChanges): Promise<WebhookEndpoint | undefined> {
    const after = await this.redis.durable<string[]>((p) =>
      p.tisChangeWebhookRecord(
        RedisKeys.webhookEndpoint(id),
        DUE,
        id,
        '',
        '',
        '',
        ...encode(changes),
      ),
    );
    return decode(after);
  }

  async disableEndpoint(id: string, reason: DisabledReason, at: string): Promise<boolean> {
    const changes = encode({ enabled: false, disabled_reason: reason, updated_at: at });
    const after = await this.redis.durable<string[]>((p) =>
      p.tisChangeWebhookRecord(
        RedisKeys.webhookEndpoint(id),
        DUE,
        id,
        'enabled',
        'true',
        '',
        ...changes,
      ),
    );
    return after.length > 0;
  }

  async deleteEndpoint(id: string): Promise<boolean> {
    const keys = [RedisKeys.webhookEndpoint(id), ENDPOINTS, RedisKeys.webhookDeliveriesOf(id)];
    const deleted = await this.redis.durable<number>((p) =>
      p.tisDeleteWebhookEndpoint(...keys, DUE, DELIVERY, id),
    );
    return deleted === 1;
  }

  async enqueue(deliveries: WebhookDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    const args = deliveries.flatMap((d) => {
      const pairs = encode(d);
      return [d.id, d.endpoint_id, dueScore(d), String(pairs.length), ...pairs];
    });
    await this.redis.durable((p) =>
      p.tisEnqueueWebhookDeliveries(DUE, DELIVERY, RedisKeys.webhookDeliveriesOfBase, ...args),
    );
  }

  async claimDue(now: string, leaseUntil: string, limit: number): Promise<WebhookDelivery[]> {
    const records = await redisCall(
      this.client.tisClaimWebhookDeliveries(DUE, DELIVERY, ms(now), ms(leaseUntil), String(limit)),
    );
    return found(records.map((flat) => decode<WebhookDelivery>(flat)));
  }

  async recordAttempt(id: string, outcome: AttemptOutcome): Promise<void> {
    const { attempt, status, response_status, error, last_attempt_at, next_attempt_at } = outcome;
    const fields = { attempt, status, response_status, error, last_attempt_at, next_attempt_at };
    const key = RedisKeys.webhookDelivery(id);
    await redisCall(
      this.client.tisChangeWebhookRecord(
        key,
        DUE,
        id,
        '',
        '',
        dueScore(outcome),
        ...encode(fields),
      ),
    );
  }

  async listDeliveries(endpointId: string, page: { before?: string; limit: number }) {
    const list = RedisKeys.webhookDeliveriesOf(endpointId);
    const max = page.before === undefined ? '+' : `(${page.before}`;
    const ids = await redisCall(this.client.zrevrangebylex(list, max, '-', 'LIMIT', 0, page.limit));
    return found(await Promise.all(ids.map((id) => this.getDelivery(endpointId, id))));
  }

  async getDelivery(endpointId: string, id: string): Promise<WebhookDelivery | undefined> {
    const fields = await redisCall(this.client.hgetall(RedisKeys.webhookDelivery(id)));
    const delivery = decode<WebhookDelivery>(read(fields));
    return delivery?.endpoint_id === endpointId ? delivery : undefined;
  }

  /** A delivery's endpoint never changes: checked first, then its status and the change at once. */
  async retryDelivery(endpointId: string, id: string, now: string) {
    if (!(await this.getDelivery(endpointId, id))) return undefined;
    const key = RedisKeys.webhookDelivery(id);
    const changes = encode({ status: 'pending', next_attempt_at: now });
    const after = await this.redis.durable<string[]>((p) =>
      p.tisChangeWebhookRecord(key, DUE, id, 'status', '"failed"', ms(now), ...changes),
    );
    return decode<WebhookDelivery>(after);
  }

  pendingCount(): Promise<number> {
    return redisCall(this.client.zcard(DUE));
  }

  /** Each endpoint's list, oldest first, PURGE_BATCH deliveries a script run (others run between). */
  async purgeDeliveries(before: string): Promise<number> {
    const endpoints = await redisCall(this.client.zrange(ENDPOINTS, 0, -1));
    const until = JSON.stringify(before);
    let purged = 0;
    for (const endpointId of endpoints) {
      const list = RedisKeys.webhookDeliveriesOf(endpointId);
      for (let from = '-'; from !== '';) {
        const [removed, next] = await redisCall(
          this.client.tisPurgeWebhookDeliveries(list, DUE, DELIVERY, until, from, PURGE_BATCH),
        );
        purged += removed;
        from = next;
      }
    }
    return purged;
  }

  async markOnce(marker: string, now: string, expiresAt: string): Promise<boolean> {
    const key = RedisKeys.webhookMark(marker);
    const args = [ms(now), ms(expiresAt), MARK_KEPT_MS];
    return (await redisCall(this.client.tisMarkWebhookOnce(key, ...args))) === 1;
  }
}
