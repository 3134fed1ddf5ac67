import type { AuthenticatedKey } from '../auth/authenticated-key';
import type { PlanLimits, Settings } from '../settings/settings';

/** A key's own limits beat its plan's; a plan the operator has since removed gives the default plan's. */
export function effectiveLimits(key: AuthenticatedKey, settings: Settings): PlanLimits {
  const plan = settings.plans[key.plan] ?? settings.plans[settings.defaultPlan];
  return {
    daily_limit: key.daily_limit ?? plan.daily_limit,
    rate_limit: key.rate_limit ?? plan.rate_limit,
  };
}
