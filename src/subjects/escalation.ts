import { effectiveLimits, planLimits, toolCost } from '../limits';
import type { Settings } from '../kernel/settings/settings';
import type { Caller } from './caller';
import { hasScope } from '../kernel/auth/scopes';

/** The fields of a key request that grant something: what a caller may give only if it has it. */
export interface Grant {
  scopes?: string[];
  plan?: string;
  daily_limit?: number | null;
  monthly_limit?: number | null;
  rate_limit?: number | null;
}

/** What each registered tool costs where a plan does not price it (its `cost`), by name. */
export type ToolCosts = ReadonlyMap<string, number>;

/** The longest UTC month: what a daily limit allows at most in one. */
const DAYS_IN_A_MONTH = 31;

/**
 * The most a key may spend in a month: its monthly limit, and no more than its daily limit allows
 * in 31 days (a key without a monthly limit but with a daily one is bounded by the daily one);
 * null: no bound at all.
 */
function monthlyBound(monthly: number | null, daily: number | null): number | null {
  const byDays = daily === null ? null : daily * DAYS_IN_A_MONTH;
  if (monthly === null) return byDays;
  return byDays === null ? monthly : Math.min(monthly, byDays);
}

/** `a` allows more than `b`: a null limit is no limit at all. */
function moreCredits(a: number | null, b: number | null): boolean {
  if (b === null) return false;
  return a === null || a > b;
}

/**
 * Whether a tool costs less on `plan` than on the caller's own plan: more calls for the same
 * credits. A caller with neither a daily nor a monthly limit spends no credits it could run out
 * of, and may grant any price.
 */
function cheaper(caller: Caller, plan: string, settings: Settings, tools: ToolCosts): boolean {
  const own = effectiveLimits(caller, settings);
  if (own.daily_limit === null && own.monthly_limit === null) return false;
  for (const [tool, cost] of tools) {
    if (toolCost(settings, plan, tool, cost) < toolCost(settings, caller.plan, tool, cost)) {
      return true;
    }
  }
  return false;
}

/**
 * The one no-escalation rule: whether a grant goes beyond what the caller holds, a scope it lacks,
 * a daily, monthly or rate limit (or burst) more generous than its own effective ones, or a plan
 * on which any registered tool costs less than on its own. Only the limits being set are compared,
 * each on its own: a plan by its limits, unless the grant sets that limit itself (a null limit falls back
 * to the plan, `basePlan` when the grant names none); the prices of the plan the grant leaves in
 * force (`basePlan` when it names none: the default plan of a new key) always are.
 *
 * Granting (create, PATCH) asks it of the fields sent; acting on a key (PATCH, rotate, disable,
 * revoke) asks it of the key as it stands (mayManage): a caller may not take hold of a key that
 * holds more than it does, for a key's new secret is all it takes to use what the key holds.
 */
export function escalates(
  caller: Caller,
  grant: Grant,
  settings: Settings,
  tools: ToolCosts,
  basePlan = settings.defaultPlan,
): boolean {
  if (grant.scopes?.some((scope) => !hasScope(caller.scopes, scope))) return true;
  if (cheaper(caller, grant.plan ?? basePlan, settings, tools)) return true;
  const own = effectiveLimits(caller, settings);
  const plan = planLimits(settings, grant.plan ?? basePlan);
  const sets = (field: 'daily_limit' | 'monthly_limit' | 'rate_limit') =>
    grant.plan !== undefined || grant[field] !== undefined;
  const daily = grant.daily_limit ?? plan.daily_limit;
  if (sets('daily_limit') && moreCredits(daily, own.daily_limit)) return true;
  // A month is compared by what each may spend in one: a monthly limit, or 31 days of a daily one.
  const monthly = monthlyBound(grant.monthly_limit ?? plan.monthly_limit, daily);
  const ownMonthly = monthlyBound(own.monthly_limit, own.daily_limit);
  if (sets('monthly_limit') && moreCredits(monthly, ownMonthly)) return true;
  if (sets('rate_limit') && (grant.rate_limit ?? plan.rate_limit) > own.rate_limit) return true;
  // A rate of the grant's own comes with a burst of that rate, a plan's rate with the plan's burst.
  return sets('rate_limit') && (grant.rate_limit ?? plan.burst) > own.burst;
}

/**
 * Whether the caller may act on (change, rotate, disable, revoke) a key or a principal: everything
 * it holds, its scopes, its effective limits and its plan's prices, is within what the caller
 * holds, by the rule of granting.
 */
export function mayManage(
  caller: Caller,
  target: Required<Grant>,
  settings: Settings,
  tools: ToolCosts,
): boolean {
  const { scopes, plan, daily_limit, monthly_limit, rate_limit } = target;
  return !escalates(
    caller,
    { scopes, plan, daily_limit, monthly_limit, rate_limit },
    settings,
    tools,
  );
}
