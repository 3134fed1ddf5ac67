import type { BucketDraw, BudgetStorage, RateBudget, ThrottlerStorageRecord } from './rate.store';
import { BucketLevel, drawFromBucket } from './token-bucket';

interface Counter {
  hits: number;
  expiresAt: number;
  blockedUntil: number;
}

/**
 * The rate storage of a single process. The keys' token buckets (drawFromBucket, the arithmetic of
 * the Redis script), and the throttler's fixed-window counters (failed authentications), step for
 * step the algorithm of @nest-lab/throttler-storage-redis's script (what several instances on Redis
 * use), so both backends limit alike.
 *
 * Not @nestjs/throttler's own in-memory storage: that one keeps a timestamp per hit and filters the
 * list on every hit, O(calls per window). This one is O(1) per hit.
 */
export class MemoryRateStore implements BudgetStorage {
  private readonly counters = new Map<string, Counter>();
  /** The keys' buckets, each with the time it is full again (when the sweep may forget it). */
  private readonly buckets = new Map<string, BucketLevel & { fullAt: number }>();
  /** The latest time a draw was made at: the buckets' clock is their callers'. */
  private bucketsNow = 0;
  // Unref'd: a process never stays alive for it.
  private readonly sweeper = setInterval(() => this.sweep(), 60_000).unref();

  draw(budget: RateBudget, calls: number, nowMs: number): Promise<BucketDraw> {
    const id = `${budget.storageKey}:${budget.throttler}`;
    const bucket = this.buckets.get(id);
    const { level, draw } = drawFromBucket(bucket, budget, calls, nowMs);
    if (level && bucket) {
      // Updated in place: a busy key's bucket is drawn from on every call.
      bucket.parts = level.parts;
      bucket.at = level.at;
      bucket.fullAt = level.at + draw.untilFullMs;
    } else if (level) {
      this.buckets.set(id, {
        parts: level.parts,
        at: level.at,
        fullAt: level.at + draw.untilFullMs,
      });
    }
    if (nowMs > this.bucketsNow) this.bucketsNow = nowMs;
    return Promise.resolve(draw);
  }

  increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    const counter = this.current(`${key}:${throttlerName}`, ttl, now);
    counter.hits += 1;
    if (counter.blockedUntil <= now && counter.hits > limit) {
      // A block of 0: blocked for what is left of the window, no longer.
      counter.blockedUntil = blockDuration > 0 ? now + blockDuration : counter.expiresAt;
    }
    const blocked = counter.blockedUntil > now;
    return Promise.resolve({
      totalHits: counter.hits,
      timeToExpire: Math.ceil((counter.expiresAt - now) / 1000),
      isBlocked: blocked,
      timeToBlockExpire: blocked ? Math.ceil((counter.blockedUntil - now) / 1000) : 0,
    });
  }

  /** The key's counter for the window running now: a new one when the last window and block are over. */
  private current(id: string, ttl: number, now: number): Counter {
    let counter = this.counters.get(id);
    if (!counter || (counter.expiresAt <= now && counter.blockedUntil <= now)) {
      counter = { hits: 0, expiresAt: now + ttl, blockedUntil: 0 };
      this.counters.set(id, counter);
    } else if (counter.expiresAt <= now) {
      counter.hits = 0;
      counter.expiresAt = now + ttl;
    }
    return counter;
  }

  /**
   * Forgets counters whose window and block are both over, and buckets full again by their
   * callers' time (a missing bucket is a full one).
   */
  private sweep(now = Date.now()): void {
    for (const [id, counter] of this.counters) {
      if (counter.expiresAt <= now && counter.blockedUntil <= now) this.counters.delete(id);
    }
    for (const [id, bucket] of this.buckets) {
      if (bucket.fullAt <= this.bucketsNow) this.buckets.delete(id);
    }
  }
}
