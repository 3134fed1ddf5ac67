import { Traced } from '../tracing';
import { Injectable } from '@nestjs/common';
import { ApiError } from '../kernel/errors/api-error';
import type { Payer } from './key-limits';
import { KeyRateLimiter } from './key-rate-limiter';
import type { QuotaCharge } from './usage.store';
import { type LedgerContext, quotaHeaders, QuotaService, QuotaState } from './quota.service';

type Headers = Record<string, string | number>;

/** What a call is to be charged: its key, and whether it is a tool call that the quota counts. */
export interface Chargeable {
  /** A tool call: charged its cost against the daily (and monthly) credits (other routes are not). */
  tool?: string;
  /** The tool's declared cost (a plan may price the tool otherwise: QuotaService.charge). */
  cost?: number;
  /** An Idempotency-Key stands between the rate limit and the quota (a replay is not charged). */
  idempotent: boolean;
  /** Its rate budget already paid by its transport (every message of an MCP POST). */
  rateLimitCounted: boolean;
  /**
   * The tool has a slot or a place in its queue for it (admission): false, the call is refused at
   * capacity after its rate is counted, and its quota must not be.
   */
  admitted?: boolean;
  /** How the call came, for its ledger entry (a tool call's). */
  ledger?: LedgerContext;
}

/**
 * What a call has been charged so far, as LimitsService recorded it: made by LimitsService only, never
 * changed (a further charge is a new Charge), so that what one check decided is what the next reads.
 */
export class Charge {
  /** @internal Made by LimitsService. */
  constructor(
    readonly key: Payer,
    readonly tool: string | undefined,
    /** Its credits: not a tool call's (unmetered), still to charge (pending), or charged. */
    readonly status: 'unmetered' | 'pending' | 'charged',
    /** What the call is (or was) charged against its credits. */
    readonly credits?: QuotaCharge,
    /** Where the key stands after the charge. */
    readonly state?: QuotaState,
  ) {}
}

/**
 * The one owner of what a call costs, for REST and both MCP transports alike: the key's rate budget
 * (per window) and its credits (its tool's cost, against the daily and monthly limits), in the
 * contract's order. CallChecks and the MCP transport ask it; nothing else counts.
 *
 * A tool call without an Idempotency-Key meets no other check between the rate limit and the quota
 * (its tool's capacity is decided before both, in memory), so both are counted in one step of the
 * store (one round trip on Redis): over the rate limit nothing is counted, and a 402 keeps its rate
 * count. A call refused at capacity is charged its rate only.
 */
@Injectable()
export class LimitsService {
  constructor(
    private readonly limiter: KeyRateLimiter,
    private readonly quota: QuotaService,
  ) {}

  /**
   * Charges a call against its key's rate budget (429 when spent), and, when nothing stands between
   * them, a tool call against its credits in the same step (402 when they do not cover it).
   */
  // Its span only when it counts the rate here: a rate its MCP POST counted waits on nothing.
  @Traced('check rate', (_key: Payer, call: Chargeable) => !call.rateLimitCounted)
  async chargeRate(key: Payer, call: Chargeable): Promise<{ charge: Charge; headers: Headers }> {
    const tool = call.tool;
    if (tool === undefined) {
      const headers = call.rateLimitCounted ? {} : (await this.limiter.consume(key)).headers;
      return { charge: new Charge(key, tool, 'unmetered'), headers };
    }
    const credits = this.quota.charge(key, tool, call.cost ?? 1, call.ledger);
    if (call.rateLimitCounted || call.idempotent || call.admitted === false) {
      const headers = call.rateLimitCounted ? {} : (await this.limiter.consume(key)).headers;
      return { charge: new Charge(key, tool, 'pending', credits), headers };
    }
    const counted = await this.limiter.consume(key, credits);
    const headers: Headers = counted.headers;
    let state: QuotaState | undefined;
    if (counted.quota) {
      try {
        state = this.quota.settle(credits, counted.quota);
      } catch (refusal) {
        // A 402 keeps its rate count, and its answer carries it, as every counted answer does.
        if (refusal instanceof ApiError) Object.assign(refusal.headers, headers);
        throw refusal;
      }
      quotaHeaders(state, headers);
    }
    return { charge: new Charge(key, tool, 'charged', credits, state), headers };
  }

  /** A tool call's credits, when still due (after its Idempotency-Key is checked): 402 when they fall short. */
  @Traced('check credits', (charge: Charge) => charge.status === 'pending' && !!charge.credits)
  async chargeCredits(charge: Charge): Promise<{ charge: Charge; headers: Headers }> {
    if (charge.status !== 'pending' || !charge.credits) return { charge, headers: {} };
    const state = await this.quota.consume(charge.key, charge.credits);
    return {
      charge: new Charge(charge.key, charge.tool, 'charged', charge.credits, state),
      headers: quotaHeaders(state),
    };
  }

  /**
   * A charged call that ended in a 5xx (a 504 among them): one more write, for its tool's `failed`
   * count. Never throws: the answer goes out whatever happens to the count.
   */
  async countFailure(charge: Charge | undefined): Promise<void> {
    if (charge?.status !== 'charged' || !charge.credits) return;
    await this.quota.countFailure(charge.key.id, charge.credits).catch(() => undefined);
  }

  /**
   * `messages` of one MCP POST against the key's rate budget, all or none (429: nothing counted);
   * their tool calls are then opened with `rateLimitCounted`.
   */
  @Traced('check rate')
  countMessages(key: Payer, messages: number): Promise<Headers> {
    return this.limiter.consumeMany(key, messages);
  }
}
