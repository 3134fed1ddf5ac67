import { Injectable } from '@nestjs/common';
import type { LimitedKey } from './key-limits';
import { KeyRateLimiter } from './key-rate-limiter';
import { quotaHeaders, QuotaService } from './quota.service';

type Headers = Record<string, number>;

/** What a call is to be charged: its key, and whether it is a tool call that the quota counts. */
export interface Chargeable {
  /** A tool call: counted against the daily quota (other keyed routes are not). */
  tool?: string;
  /** An Idempotency-Key stands between the rate limit and the quota (a replay is not charged). */
  idempotent: boolean;
  /** Its rate budget already paid by its transport (every message of an MCP POST). */
  ratePaid: boolean;
}

/**
 * What a call has been charged so far, as Accounting recorded it: made by Accounting only, never
 * changed (a further charge is a new Charge), so that what a step decided is what the next reads.
 */
export class Charge {
  /** @internal Made by Accounting. */
  constructor(
    readonly key: LimitedKey,
    readonly tool: string | undefined,
    /** The daily quota: not a tool call (none), still to count (due), or counted. */
    readonly quota: 'none' | 'due' | 'counted',
  ) {}
}

/**
 * The one owner of what a call costs, for REST and both MCP transports alike: the key's rate budget
 * (per window) and its daily quota, in the contract's order. Steps of the pipeline and the MCP
 * transport ask it; nothing else counts.
 *
 * A tool call without an Idempotency-Key meets no other check between the rate limit and the quota,
 * so both are counted in one step of the store (one round trip on Redis): over the rate limit
 * nothing is counted, and a 402 keeps its rate count.
 */
@Injectable()
export class Accounting {
  constructor(
    private readonly limiter: KeyRateLimiter,
    private readonly quota: QuotaService,
  ) {}

  /**
   * Charges a call against its key's rate budget (429 when spent), and, when nothing stands between
   * them, a tool call against its daily quota in the same step (402 when used up).
   */
  async open(key: LimitedKey, call: Chargeable): Promise<{ charge: Charge; headers: Headers }> {
    const tool = call.tool;
    if (tool === undefined) {
      const headers = call.ratePaid ? {} : (await this.limiter.consume(key)).headers;
      return { charge: new Charge(key, tool, 'none'), headers };
    }
    if (call.ratePaid || call.idempotent) {
      const headers = call.ratePaid ? {} : (await this.limiter.consume(key)).headers;
      return { charge: new Charge(key, tool, 'due'), headers };
    }
    const today = this.quota.today(key);
    const counted = await this.limiter.consume(key, today);
    const headers: Headers = { ...counted.headers };
    if (counted.quota)
      Object.assign(headers, quotaHeaders(this.quota.settle(today, counted.quota)));
    return { charge: new Charge(key, tool, 'counted'), headers };
  }

  /** A tool call's daily quota, when still due (after its idempotency step): 402 when used up. */
  async chargeQuota(charge: Charge): Promise<{ charge: Charge; headers: Headers }> {
    if (charge.quota !== 'due') return { charge, headers: {} };
    const headers = quotaHeaders(await this.quota.consume(charge.key));
    return { charge: new Charge(charge.key, charge.tool, 'counted'), headers };
  }

  /**
   * `messages` of one MCP POST against the key's rate budget, all or none (429: nothing counted);
   * their tool calls are then opened with `ratePaid`.
   */
  prepay(key: LimitedKey, messages: number): Promise<Headers> {
    return this.limiter.consumeMany(key, messages);
  }
}
