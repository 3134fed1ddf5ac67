import { redisCall } from '../kernel/store/redis/redis.connection';
import type { RedisDatabase } from '../kernel/store/redis/redis.database';
import { RedisKeys } from '../kernel/store/redis/redis.keys';
import { WEBHOOK_SCRIPTS } from './redis-webhook.scripts';
import {
  AttemptOutcome,
  BackloggedDelivery,
  ClaimLimits,
  DisabledReason,
  EndpointChanges,
  FailingSpell,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookStore,
} from './webhook.store';

/** Deliveries a purge script looks at in one run (the purge runs it until the lists are done). */
const PURGE_BATCH = '500';
/** Deliveries of the earlier layout moved in one script run (the move runs it until done). */
const MOVE_BATCH = '500';
/** A marker whose expiry Redis's clock says is past is still kept this long (housekeeping). */
const MARK_KEPT_MS = String(24 * 60 * 60 * 1000);

const {
  webhookDeliveryBase: DELIVERY,
  webhookEndpoints: ENDPOINTS,
  webhookEndpointBase: ENDPOINT,
  webhookDueBase: DUE,
  webhookPendingBase: PENDING,
} = RedisKeys;

/** An endpoint's due and pending sets. */
const outboxOf = (endpointId: string) => [
  RedisKeys.webhookDueOf(endpointId),
  RedisKeys.webhookPendingOf(endpointId),
];

/** An endpoint's fields added since its first version: what a record written before lacks. */
const ENDPOINT_DEFAULTS = { consecutive_failures: 0, backlog_failed: 0, backlog_failed_at: null };

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
 * atomic without cjson. Each endpoint's due set holds its pending deliveries, scored by when due
 * (ms; a claim moves one to its lease's end), and its pending set the same by age. Endpoint
 * writes, enqueues and retries are durable under REDIS_WAIT_REPLICAS; claims and attempts are not
 * (a lost one is sent again).
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
    const fields = await redisCall(this.client.hgetall(RedisKeys.webhookEndpoint(id)));
    const endpoint = decode<WebhookEndpoint>(read(fields));
    return endpoint && { ...ENDPOINT_DEFAULTS, ...endpoint };
  }

  async listEndpoints(): Promise<WebhookEndpoint[]> {
    const ids = await redisCall(this.client.zrange(ENDPOINTS, 0, -1));
    return found(await Promise.all(ids.map((id) => this.getEndpoint(id))));
  }

  async updateEndpoint(id: string, changes: EndpointChanges): Promise<WebhookEndpoint | undefined> {
    const after = await this.redis.durable<string[]>((p) =>
      p.tisChangeWebhookRecord(
        RedisKeys.webhookEndpoint(id),
        ...outboxOf(id),
        id,
        '',
        '',
        '',
        ...encode(changes),
      ),
    );
    const endpoint = decode<WebhookEndpoint>(after);
    return endpoint && { ...ENDPOINT_DEFAULTS, ...endpoint };
  }

  async disableEndpoint(id: string, reason: DisabledReason, at: string): Promise<boolean> {
    const changes = encode({ enabled: false, disabled_reason: reason, updated_at: at });
    const after = await this.redis.durable<string[]>((p) =>
      p.tisChangeWebhookRecord(
        RedisKeys.webhookEndpoint(id),
        ...outboxOf(id),
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
      p.tisDeleteWebhookEndpoint(...keys, ...outboxOf(id), DELIVERY, id),
    );
    return deleted === 1;
  }

  async enqueue(
    deliveries: WebhookDelivery[],
    maxPending: number,
    at: string,
  ): Promise<BackloggedDelivery[]> {
    if (deliveries.length === 0) return [];
    const args = deliveries.flatMap((d) => {
      const pairs = encode(d);
      return [d.id, d.endpoint_id, dueScore(d), String(pairs.length), ...pairs];
    });
    const keys = [DELIVERY, RedisKeys.webhookDeliveriesOfBase, DUE, PENDING, ENDPOINT];
    const failed = await this.redis.durable<string[]>((p) =>
      p.tisEnqueueWebhookDeliveries(...keys, String(maxPending), JSON.stringify(at), ...args),
    );
    const backlogged: BackloggedDelivery[] = [];
    for (let i = 0; i + 2 < failed.length; i += 3) {
      const type = JSON.parse(failed[i + 1]) as string | null;
      backlogged.push({ id: failed[i], type: type ?? 'unknown', endpoint_id: failed[i + 2] });
    }
    return backlogged;
  }

  async claimDue(now: string, leaseUntil: string, limits: ClaimLimits) {
    const busy = [...limits.inFlight].flatMap(([id, count]) => [id, String(count)]);
    const records = await redisCall(
      this.client.tisClaimWebhookDeliveries(
        ...[ENDPOINTS, ENDPOINT, DUE, DELIVERY],
        ...[ms(now), ms(leaseUntil), String(limits.total), String(limits.perEndpoint)],
        ...[String(limits.failingAfter), limits.after ?? '', ...busy],
      ),
    );
    return found(records.map((flat) => decode<WebhookDelivery>(flat)));
  }

  async recordAttempt(
    delivery: Pick<WebhookDelivery, 'id' | 'endpoint_id'>,
    outcome: AttemptOutcome,
    sent: boolean,
  ): Promise<FailingSpell | undefined> {
    const { attempt, status, response_status, error, last_attempt_at, next_attempt_at } = outcome;
    const fields = { attempt, status, response_status, error, last_attempt_at, next_attempt_at };
    const keys = [
      RedisKeys.webhookDelivery(delivery.id),
      RedisKeys.webhookEndpoint(delivery.endpoint_id),
      ...outboxOf(delivery.endpoint_id),
    ];
    const flags = [sent ? '1' : '0', status === 'succeeded' ? '1' : '0'];
    const spell = await redisCall(
      this.client.tisRecordWebhookAttempt(
        ...keys,
        ...[delivery.id, dueScore(outcome), ...flags, JSON.stringify(last_attempt_at)],
        ...encode(fields),
      ),
    );
    if (spell.length === 0) return undefined;
    return {
      failing_since: JSON.parse(spell[0] ?? 'null') as string | null,
      consecutive_failures: Number(spell[1] ?? 0),
    };
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
      p.tisChangeWebhookRecord(
        key,
        ...outboxOf(endpointId),
        id,
        'status',
        '"failed"',
        ms(now),
        ...changes,
      ),
    );
    return decode<WebhookDelivery>(after);
  }

  pendingCount(): Promise<number> {
    return redisCall(this.client.tisCountWebhookPending(ENDPOINTS, PENDING));
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
          this.client.tisPurgeWebhookDeliveries(list, DELIVERY, until, from, PURGE_BATCH),
        );
        purged += removed;
        from = next;
      }
    }
    return purged;
  }

  /** The earlier layout's one due set, moved into the endpoints' own a batch at a time. */
  async moveEarlierOutbox(): Promise<number> {
    const keys = [RedisKeys.webhookEarlierDue, DELIVERY, DUE, PENDING];
    const before = await redisCall(this.client.zcard(RedisKeys.webhookEarlierDue));
    for (let left = before; left > 0;) {
      left = await redisCall(this.client.tisMoveEarlierWebhookDue(...keys, MOVE_BATCH));
    }
    return before;
  }

  async markOnce(marker: string, now: string, expiresAt: string): Promise<boolean> {
    const key = RedisKeys.webhookMark(marker);
    const args = [ms(now), ms(expiresAt), MARK_KEPT_MS];
    return (await redisCall(this.client.tisMarkWebhookOnce(key, ...args))) === 1;
  }
}
