import { redisCall } from '../kernel/store/redis/redis.connection';
import type { RedisDatabase } from '../kernel/store/redis/redis.database';
import { RedisKeys } from '../kernel/store/redis/redis.keys';
import {
  IdempotencyBegin,
  IdempotencyCaps,
  IdempotencyClaim,
  IdempotencyStore,
} from './idempotency.store';
import { IDEMPOTENCY_SCRIPTS } from './redis-idempotency.scripts';

/** Expired idempotency entries of one key forgotten by one script of the purge. */
const PURGE_SLICE = 1000;

/** A Redis glob pattern matching `text` itself: its special characters escaped. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * Idempotency entries in Redis, under the key's hash tag: a hash of entries (scope -> JSON), a
 * sorted set of their expiry times and the bytes they count; each step one script on one slot.
 */
export class RedisIdempotencyStore extends IdempotencyStore {
  constructor(private readonly redis: RedisDatabase) {
    super();
    redis.define(IDEMPOTENCY_SCRIPTS);
  }

  async beginIdempotent(
    claim: IdempotencyClaim,
    nowMs: number,
    runningUntilMs: number,
    caps: IdempotencyCaps,
  ): Promise<IdempotencyBegin> {
    const [state, status, body] = await redisCall(
      this.redis.client.tisBeginIdempotent(
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
      this.redis.client.tisEndIdempotent(
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
      this.redis.client.tisEndIdempotent(
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

  async fullUntil(
    keyId: string,
    nowMs: number,
    caps: IdempotencyCaps,
  ): Promise<number | undefined> {
    const until = await redisCall(
      this.redis.client.tisIdempotencyFullUntil(
        ...RedisKeys.idempotency(keyId),
        String(nowMs),
        String(caps.entries),
        String(caps.bytes),
      ),
    );
    return until < 0 ? undefined : until;
  }

  async keepSize(keyId: string, scope: string, bytes: number, keepUntilMs: number): Promise<void> {
    await redisCall(
      this.redis.client.tisKeepSize(
        ...RedisKeys.idempotency(keyId),
        scope,
        String(bytes),
        String(keepUntilMs),
      ),
    );
  }

  async forgetAccepted(keyId: string, scope: string): Promise<void> {
    await redisCall(this.redis.client.tisForgetAccepted(...RedisKeys.idempotency(keyId), scope));
  }

  /**
   * Every caller's entries (keys' and principals'), found by SCAN on each master (a Cluster's every
   * master), each caller's expired ones forgotten by one script on its own slot, PURGE_SLICE at a
   * time.
   */
  async purgeIdempotent(nowMs: number): Promise<number> {
    const prefix = this.redis.settings.redisKeyPrefix;
    let purged = 0;
    for (const pattern of RedisKeys.idempotencyExpiryPatterns) {
      purged += await this.purgeMatching(`${escapeGlob(prefix)}${pattern}`, prefix, nowMs);
    }
    return purged;
  }

  private async purgeMatching(match: string, prefix: string, nowMs: number): Promise<number> {
    let purged = 0;
    for (const master of this.redis.masters()) {
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
        this.redis.client.tisPurgeIdempotent(
          ...RedisKeys.idempotency(id),
          String(nowMs),
          String(PURGE_SLICE),
        ),
      );
      purged += forgotten;
      if (forgotten < PURGE_SLICE) return purged;
    }
  }
}
