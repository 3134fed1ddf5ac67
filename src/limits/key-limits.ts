import { planNamed, type PlanLimits, type Settings } from '../kernel/settings/settings';
import type { RateBudget } from './call-counter';
import type { RunBudget } from './usage.store';
import { RedisKeys } from '../kernel/store/redis/redis.keys';

export type { RateBudget };

/** What limits need to know of a key: its id, its plan and its own limits (an API key has them). */
export interface Payer {
  id: string;
  plan: string;
  daily_limit: number | null;
  monthly_limit: number | null;
  rate_limit: number | null;
  /** Its record's revision in a shared store: the count checks that the record is still this one. */
  revision?: number;
  /** Who pays, in the ledger: a key (the default) or a principal. */
  kind?: 'key' | 'principal';
  /** The customer or account it belongs to, carried into the ledger. */
  external_id?: string | null;
  /** A run's token calls: its calls count against the run's budget as well. */
  run?: RunBudget;
}

/**
 * The limits of a plan by name; a name that is not a plan (one the operator has since removed, or
 * one stored before plans were checked as own entries) gives the default plan's.
 */
export function planLimits(settings: Settings, name: string): PlanLimits {
  return (
    planNamed(settings.plans, name) ??
    (planNamed(settings.plans, settings.defaultPlan) as PlanLimits)
  );
}

/** What a key may spend: its own limits where it has them, its plan's otherwise. */
export type EffectiveLimits = Pick<
  PlanLimits,
  'daily_limit' | 'monthly_limit' | 'rate_limit' | 'burst'
>;

/**
 * A key's own limits beat its plan's. A rate of its own comes with a burst of the same size: such
 * a key may make its rate's worth of calls at once, as before plans had a burst.
 */
export function effectiveLimits(key: Payer, settings: Settings): EffectiveLimits {
  const plan = planLimits(settings, key.plan);
  return {
    daily_limit: key.daily_limit ?? plan.daily_limit,
    monthly_limit: key.monthly_limit ?? plan.monthly_limit,
    rate_limit: key.rate_limit ?? plan.rate_limit,
    burst: key.rate_limit ?? plan.burst,
  };
}

/**
 * What a call of `tool` costs a key on `plan`: the plan's own price for the tool
 * (`limits.plans.<plan>.tool_costs`), else the tool's declared `cost`.
 */
export function toolCost(settings: Settings, plan: string, tool: string, declared: number): number {
  const costs = planLimits(settings, plan).tool_costs;
  return Object.hasOwn(costs, tool) ? costs[tool] : declared;
}

/** The throttler that holds the per-key budget (its window is `settings.rateLimitWindowMs`). */
export const RATE_THROTTLER = 'default';

/**
 * The storage key of a key's budget: one per key across every route and protocol. On Redis it
 * carries the key's hash tag, so the budget lives in the key's Cluster slot.
 */
export function keyRateStorageKey(keyId: string): string {
  return RedisKeys.rate(keyId);
}

/**
 * The one rate budget of a key, shared by REST and MCP (both count through KeyRateLimiter) so that
 * a client cannot double its rate by switching protocols.
 */
export function rateBudgetOf(key: Payer, settings: Settings): RateBudget {
  const { rate_limit, burst } = effectiveLimits(key, settings);
  return {
    throttler: RATE_THROTTLER,
    storageKey: keyRateStorageKey(key.id),
    windowMs: settings.rateLimitWindowMs,
    rate: rate_limit,
    burst,
  };
}
