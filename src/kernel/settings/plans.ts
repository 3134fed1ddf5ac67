import { parseOne, wholeNumber } from './environment.schema';
import { SettingsError } from './settings.error';

/** A plan's limits: an operator setting (CONFIG_FILE's `limits.plans`, PLAN_<NAME>_*), never a tool's. */
export interface PlanLimits {
  /** Credits per UTC day; null means no daily limit. */
  daily_limit: number | null;
  /** Credits per UTC calendar month; null means no monthly limit. */
  monthly_limit: number | null;
  /** Calls per rate-limit window (a second by default): the rate the bucket refills at. */
  rate_limit: number;
  /** Calls a caller may make at once after a quiet spell: the size of its token bucket. */
  burst: number;
  /** What a tool costs on this plan, where it differs from the tool's own `cost`. */
  tool_costs: Readonly<Record<string, number>>;
}

export const DEFAULT_PLANS: Record<string, PlanLimits> = {
  free: { daily_limit: 100, monthly_limit: null, rate_limit: 5, burst: 15, tool_costs: {} },
  pro: { daily_limit: 10_000, monthly_limit: 200_000, rate_limit: 50, burst: 100, tool_costs: {} },
  unlimited: {
    daily_limit: null,
    monthly_limit: null,
    rate_limit: 1_000,
    burst: 2_000,
    tool_costs: {},
  },
};

/**
 * The plan of that name, or undefined: only the plans table's own entries are plans, so a name like
 * `__proto__`, `constructor` or `toString` is an unknown plan, never an object member.
 */
export function planNamed(
  plans: Readonly<Record<string, PlanLimits>>,
  name: string,
): PlanLimits | undefined {
  return Object.hasOwn(plans, name) ? plans[name] : undefined;
}

export function checkLimit(where: string, value: unknown, nullable: boolean): number | null {
  if (value === null && nullable) return null;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw new SettingsError(
    `Invalid ${where}: expected a whole number >= 0${nullable ? ' or null' : ''}`,
  );
}

/** `limits.plans.<plan>.tool_costs`: tool name -> credits (a whole number >= 0), own entries only. */
function toolCosts(where: string, value: unknown): Record<string, number> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new SettingsError(
      `Invalid CONFIG_FILE: ${where} must be a mapping of tool names to costs`,
    );
  }
  const costs = Object.create(null) as Record<string, number>;
  for (const [tool, cost] of Object.entries(value as Record<string, unknown>)) {
    if (!/^[a-z][a-z0-9_]*$/.test(tool)) {
      throw new SettingsError(`Invalid CONFIG_FILE: ${where}.${tool} is not a tool name`);
    }
    costs[tool] = checkLimit(`${where}.${tool}`, cost, false) as number;
  }
  return costs;
}

/**
 * A plan of the file over its defaults (a new plan: no limits, one call a window). A plan whose
 * rate the file sets without a burst gets a burst of that rate: a built-in plan's burst goes with
 * its built-in rate only.
 */
function planFromFile(name: string, plan: Record<string, unknown>, base: PlanLimits): PlanLimits {
  const where = `limits.plans.${name}`;
  const limit = (field: 'daily_limit' | 'monthly_limit') =>
    field in plan ? checkLimit(`${where}.${field}`, plan[field], true) : base[field];
  const calls = (field: 'rate_limit' | 'burst') =>
    checkLimit(`${where}.${field}`, plan[field], false) as number;
  const rate = 'rate_limit' in plan ? calls('rate_limit') : base.rate_limit;
  return {
    daily_limit: limit('daily_limit'),
    monthly_limit: limit('monthly_limit'),
    rate_limit: rate,
    burst: 'burst' in plan ? calls('burst') : 'rate_limit' in plan ? rate : base.burst,
    tool_costs:
      'tool_costs' in plan ? toolCosts(`${where}.tool_costs`, plan.tool_costs) : base.tool_costs,
  };
}

/**
 * The plans: the defaults, CONFIG_FILE's `limits.plans` over them, then PLAN_<NAME>_DAILY_LIMIT,
 * PLAN_<NAME>_MONTHLY_LIMIT (`none`: no limit), PLAN_<NAME>_RATE_LIMIT and PLAN_<NAME>_BURST over
 * both. A rate set without a burst (in the file or the environment) brings a burst of that rate.
 */
export function resolvePlans(
  env: Record<string, string | undefined>,
  fileLimits: Record<string, unknown>,
): Record<string, PlanLimits> {
  // No prototype: nothing but the plans themselves is ever read from it.
  const plans = Object.assign(
    Object.create(null) as Record<string, PlanLimits>,
    structuredClone(DEFAULT_PLANS),
  );
  const filePlans = fileLimits.plans;
  /** The plans whose burst the file sets: a rate from the environment leaves theirs alone. */
  const ownBurst = new Set<string>();
  if (filePlans !== undefined) {
    if (!filePlans || typeof filePlans !== 'object') {
      throw new SettingsError("Invalid CONFIG_FILE: 'limits.plans' must be a mapping");
    }
    for (const [name, value] of Object.entries(filePlans as Record<string, unknown>)) {
      if (!/^[a-z][a-z0-9_]*$/.test(name) || !value || typeof value !== 'object') {
        throw new SettingsError(`Invalid CONFIG_FILE: limits.plans.${name} must be a mapping`);
      }
      const base = planNamed(plans, name) ?? {
        daily_limit: null,
        monthly_limit: null,
        rate_limit: 1,
        burst: 1,
        tool_costs: {},
      };
      plans[name] = planFromFile(name, value as Record<string, unknown>, base);
      if ('burst' in value) ownBurst.add(name);
    }
  }
  // The environment wins over the file.
  for (const name of Object.keys(plans)) {
    const upper = name.toUpperCase();
    for (const field of ['daily_limit', 'monthly_limit'] as const) {
      const variable = `PLAN_${upper}_${field.toUpperCase()}`;
      const raw = env[variable];
      if (raw !== undefined && raw !== '') {
        plans[name][field] = raw === 'none' ? null : parseOne(wholeNumber(0), variable, raw);
      }
    }
    const calls = (field: 'rate_limit' | 'burst') => {
      const variable = `PLAN_${upper}_${field.toUpperCase()}`;
      const raw = env[variable];
      return raw === undefined || raw === ''
        ? undefined
        : parseOne(wholeNumber(0, 1), variable, raw);
    };
    const rate = calls('rate_limit');
    if (rate !== undefined) {
      plans[name].rate_limit = rate;
      if (!ownBurst.has(name)) plans[name].burst = rate;
    }
    plans[name].burst = calls('burst') ?? plans[name].burst;
  }
  return plans;
}
